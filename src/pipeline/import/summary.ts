import { emptyCounts, type EntityCounts, type RunCounts } from '../events.js';
import type { MediaSummary } from './media-session.js';
import type { RetentionOutcome } from '../retention.js';
import { DECIDED_SKIPS } from '../../checkpoint/ledger.js';

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
  /** Every message read this run was skipped on purpose (no window decided it): how many, by reason. */
  allMessagesSkipped?: { count: number; by: Record<string, number> };
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
      } else if (key === 'unchangedFiles') total.unchangedFiles = (total.unchangedFiles ?? 0) + (value as number);
      else total[key] += value as number;
    }
  }
  return total;
}

/**
 * Messages read, none in: every one skipped for a reason other than a window the person set (the
 * retention window has its own outcome), none imported, found, rejected, held or done by an earlier
 * run. Undefined otherwise.
 */
export function allMessagesSkipped(entities: RunCounts): ImportSummary['allMessagesSkipped'] {
  const m = entities.messages;
  if (m === undefined || m.read === 0 || m.skipped !== m.read) return undefined;
  if (m.imported + m.alreadyPresent + m.rejected + m.blocked + m.resumed + m.unsent > 0) return undefined;
  const by = Object.fromEntries(Object.entries(m.skippedBy).filter(([reason]) => !DECIDED_SKIPS.has(reason)));
  const count = Object.values(by).reduce((a, b) => a + b, 0);
  return count === m.read ? { count, by } : undefined;
}

/** The last line of a run whose messages were all skipped: how many, why, and that none is in. */
export function allSkippedLine(s: NonNullable<ImportSummary['allMessagesSkipped']>): string {
  const reasons = Object.entries(s.by)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  const what = s.count === 1 ? '1 message' : `all ${s.count} messages`;
  return (
    `Not sent: ${what} of the export ${s.count === 1 ? 'was' : 'were'} skipped (${reasons}): no message is in. ` +
    'See docs/presets.md for the options that include them (includeJoinLeave, includeBots), or check the export.'
  );
}
