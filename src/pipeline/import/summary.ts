import type { EntityCounts, RunCounts } from '../events.js';

/** The end-of-run report: printed as a table, or as one JSON object with `--json`. */
export interface ImportSummary {
  status: 'completed' | 'completed-with-rejects' | 'interrupted' | 'failed';
  exitCode: number;
  entities: RunCounts;
  totals: Omit<EntityCounts, 'elapsedMs'>;
  elapsedMs: number;
  checkpoint: string;
  rejects: string;
  resumed: boolean;
  /** What stopped a failed run; `hint`, when there is one, says what to do about it. */
  error?: { code: string; message: string; hint?: string };
  warnings: string[];
}

export function sumCounts(entities: RunCounts): Omit<EntityCounts, 'elapsedMs'> {
  const total = {
    read: 0,
    imported: 0,
    alreadyPresent: 0,
    rejected: 0,
    rejectedEarlier: 0,
    skipped: 0,
    resumed: 0,
    unsent: 0,
    fileProblems: 0,
    requests: 0,
    retries: 0,
  };
  const skippedBy: Record<string, number> = {};
  for (const c of Object.values(entities)) {
    for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += c![k];
    for (const [reason, n] of Object.entries(c!.skippedBy)) skippedBy[reason] = (skippedBy[reason] ?? 0) + n;
  }
  return { ...total, skippedBy };
}
