import { emptyCounts, type EntityCounts, type RunCounts } from '../events.js';
import type { MediaSummary } from './media-session.js';
import type { RetentionOutcome } from '../retention.js';

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
  /** With `media` set: files carried, reused, not carried (the first listed), the map and problems files. */
  media?: MediaSummary;
  /** The whole migration after this run, from its ledger (every run so far, not just this one). */
  migration?: MigrationStatus;
  /** Messages of the migration left out as beyond the retention window (the ledger's count). */
  retention?: RetentionOutcome;
  /** The export's files its preset read nothing of (validate and import name them). */
  unreadFiles?: string[];
}

/** What the ledger says of the migration as a whole (src/checkpoint/ledger.ts). */
export interface MigrationStatus {
  state: string;
  statusLine: string;
  /** Attachments not carried, by reason: their messages wait. */
  mediaNotCarried: number;
  mediaNotCarriedBy: Record<string, number>;
}

export function sumCounts(entities: RunCounts): Omit<EntityCounts, 'elapsedMs'> {
  // One list of figures: emptyCounts's. Numbers add up; skips by reason merge.
  const { elapsedMs: _, ...total } = emptyCounts();
  for (const c of Object.values(entities)) {
    for (const [key, value] of Object.entries(c!) as Array<[keyof EntityCounts, unknown]>) {
      if (key === 'elapsedMs') continue;
      if (key === 'skippedBy') {
        for (const [reason, n] of Object.entries(value as Record<string, number>)) {
          total.skippedBy[reason] = (total.skippedBy[reason] ?? 0) + n;
        }
      } else total[key] += value as number;
    }
  }
  return total;
}
