/**
 * The lag of a sync, round by round: the newest message pulled from the source against the newest
 * one verified on the service. Each round is a `sync-round` line of the run log (docs/report.md), and
 * a restarted sync takes its round number and its newest verified time back from the last one.
 */
import { readRunLog } from '../../checkpoint/run-log-file.js';
import { runLogPathOf } from '../../checkpoint/state-files.js';

/** One round as the run log keeps it and the report draws it. */
export interface SyncRoundLine {
  /** Counted over every sync of the migration, restarts included. */
  round: number;
  /** The round's last step: the cutover's final delta and full verify. */
  final: boolean;
  /** The pull run's folder, and whether it was a delta or everything. */
  folder: string;
  kind: 'full' | 'delta';
  /** Records the pull wrote in this round, per entity. */
  pulled: Record<string, number>;
  /** What the import did with the export this round: sent and stored, already there, rejected. */
  imported: number;
  alreadyPresent: number;
  rejected: number;
  /** Message files the import did not read again: they end where an earlier reading of them ended. */
  unchangedFiles?: number;
  /**
   * The round's verify: records looked for, found equal, missing, different; and the message files it
   * did not read (unchanged, all older than its window).
   */
  verified: {
    since?: string;
    expected: number;
    present: number;
    missing: number;
    different: number;
    filesNotRead?: number;
  };
  /** Newest message time on the source (as pulled) and on the service (as verified), ISO. */
  newestPulledAt?: string;
  newestVerifiedAt?: string;
  /** newestPulled - newestVerified, in ms: 0 when the service has caught up. */
  lagMs?: number;
  /** Records pulled and not yet on the service as verify found them: missing or different. */
  notAcross: number;
  tookMs: number;
}

/** Where the last sync left off: its round and the newest message verified on the service. */
export interface SyncResumePoint {
  round: number;
  newestVerifiedMs?: number;
  /** The last round's verify found everything of its window on the service. */
  lastRoundGood?: boolean;
}

/** The last `sync-round` line of this migration's run log, if any sync has finished a round. */
export async function lastSyncRound(checkpoint: string): Promise<SyncResumePoint> {
  const { lines } = await readRunLog(runLogPathOf(checkpoint));
  const last = lines.findLast((l) => l.type === 'sync-round') as unknown as SyncRoundLine | undefined;
  if (!last) return { round: 0 };
  const verified = last.newestVerifiedAt === undefined ? undefined : Date.parse(last.newestVerifiedAt);
  return {
    round: last.round,
    newestVerifiedMs: Number.isNaN(verified) ? undefined : verified,
    lastRoundGood: last.notAcross === 0,
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * The lag after a round: a round whose verify found everything equal moves the newest verified
 * message up to the newest pulled; one that found gaps leaves it where the last good round put it, so
 * the lag grows while the gaps stay.
 */
export function lagAfter(
  newestPulledMs: number | undefined,
  previousVerifiedMs: number | undefined,
  roundOk: boolean,
): Pick<SyncRoundLine, 'newestPulledAt' | 'newestVerifiedAt' | 'lagMs'> & { newestVerifiedMs?: number } {
  const newestVerifiedMs = roundOk ? (newestPulledMs ?? previousVerifiedMs) : previousVerifiedMs;
  const lagMs =
    newestPulledMs === undefined || newestVerifiedMs === undefined
      ? undefined
      : Math.max(0, newestPulledMs - newestVerifiedMs);
  return { newestPulledAt: iso(newestPulledMs), newestVerifiedAt: iso(newestVerifiedMs), lagMs, newestVerifiedMs };
}
