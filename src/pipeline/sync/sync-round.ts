/**
 * One round of `sync`: pull what is new (`--since auto`), import the export as it now stands, verify
 * what the round brought, and write a `sync-round` line. Each step is the command's own body over the
 * same run (pullInRun, importInRun, verifyInRun), so a round resumes exactly as the three commands do.
 */
import type { ExportFolder } from '../../media/media-sources.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { RunEvents } from '../events.js';
import type { ImportSummary } from '../import/summary.js';
import { importInRun } from '../import/import-in-run.js';
import { type PullOptions, type PullSummary, pullInRun } from '../pull/pull-in-run.js';
import type { Run } from '../run/run.js';
import type { VerifyResult } from '../verify/verify-result.js';
import { logVerifyEnd, recordVerdict, verifyInRun } from '../verify/verify-in-run.js';
import { lagAfter, type SyncRoundLine } from './sync-lag.js';

/** The export as its preset reads it now (planned again each round: a delta adds a folder). */
export interface SyncPlan {
  plans: EntityPlan[];
  idMap?: { commit(): Promise<void>; discard(): Promise<void> };
  exportFolder?: ExportFolder;
}

export interface RoundOptions {
  round: number;
  final: boolean;
  pull: Omit<PullOptions, 'since'>;
  plan(): Promise<SyncPlan>;
  /** The newest message the last good round verified on the service (ms). */
  newestVerifiedMs?: number;
  /** The round before this one was that good round: what it verified is not read again. */
  lastRoundGood?: boolean;
}

export interface RoundResult {
  line: SyncRoundLine;
  newestVerifiedMs?: number;
  pull: PullSummary;
  import: ImportSummary;
  /** Absent when the import did not finish: nothing to verify yet. */
  verify?: VerifyResult;
}

export async function runRound(run: Run, options: RoundOptions): Promise<RoundResult> {
  const started = Date.now();
  const { round, final } = options;
  const label = final ? 'final round' : `round ${round}`;
  // The pull's and verify's phases count other things than the import's (pages written, records
  // found): their own words are in the round's line, not in the import's bars.
  const quiet = { ...run, events: quietEvents(run.events) };
  const pull = await pullInRun(quiet, { ...options.pull, since: { mode: 'auto' } });
  const pulled = Object.fromEntries(Object.entries(pull.counts).map(([entity, c]) => [entity, c.imported]));
  run.events.info(`${label}: pulled ${describeCounts(pulled)} into ${pull.folder}`);
  const plan = await options.plan();
  let imported: ImportSummary;
  try {
    imported = await importInRun(run, {
      plans: plan.plans,
      idMap: plan.idMap,
      exportFolder: plan.exportFolder,
      fresh: false,
    });
  } finally {
    await plan.idMap?.discard();
  }
  let verify: VerifyResult | undefined;
  let sinceSec: number | undefined;
  if (imported.status === 'completed' || imported.status === 'completed-with-rejects') {
    // Everything up to the last good round's newest message was verified then; a late reply within
    // the lookback is looked at again. The final round verifies the whole export.
    const lookbackMs = options.pull.lookbackMinutes * 60_000;
    const from = final || options.newestVerifiedMs === undefined ? undefined : options.newestVerifiedMs - lookbackMs;
    sinceSec = from === undefined ? undefined : Math.floor(from / 1000);
    // Files read before this round, unchanged since, were verified up to the newest verified message by
    // the round before when it was good: only what this round read is looked at (and the window).
    const before = options.lastRoundGood ? options.newestVerifiedMs : undefined;
    const verifiedBefore =
      from === undefined || before === undefined
        ? undefined
        : { throughSec: Math.floor(before / 1000), readBeforeMs: started };
    verify = await verifyInRun(quiet, { plans: plan.plans, sample: 0, sinceSec, verifiedBefore });
    // Only the full reading of the final round speaks for the whole export (the ledger's proof).
    if (final) {
      recordVerdict(run, verify);
      logVerifyEnd(run, verify);
    }
  }
  const sum = (key: 'expected' | 'present' | 'missing' | 'different') =>
    Object.values(verify?.entities ?? {}).reduce((n, v) => n + (v?.[key] ?? 0), 0);
  const roundOk = verify !== undefined && !run.stop.aborted && sum('missing') + sum('different') === 0;
  const lag = lagAfter(pull.newestMessageMs, options.newestVerifiedMs, roundOk);
  const { totals } = imported;
  const line: SyncRoundLine = {
    round,
    final,
    folder: pull.folder,
    kind: pull.kind,
    pulled,
    imported: totals.imported,
    alreadyPresent: totals.alreadyPresent,
    rejected: totals.rejected,
    unchangedFiles: totals.unchangedFiles ?? 0,
    verified: {
      since: sinceSec === undefined ? undefined : new Date(sinceSec * 1000).toISOString(),
      expected: sum('expected'),
      present: sum('present'),
      missing: sum('missing'),
      different: sum('different'),
      filesNotRead: verify?.filesNotRead ?? 0,
    },
    newestPulledAt: lag.newestPulledAt,
    newestVerifiedAt: lag.newestVerifiedAt,
    lagMs: lag.lagMs,
    notAcross: sum('missing') + sum('different'),
    tookMs: Date.now() - started,
  };
  return { pull, import: imported, verify, line, newestVerifiedMs: lag.newestVerifiedMs };
}

/** `12 messages, 1 user`: the non-zero counts, or `nothing new`. */
export function describeCounts(counts: Record<string, number>): string {
  const shown = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([entity, n]) => `${n} ${n === 1 ? entity.replace(/s$/, '') : entity}`);
  return shown.length > 0 ? shown.join(', ') : 'nothing new';
}

/** The run's events less the phases: warnings, notices and retries still reach the person. */
function quietEvents(events: RunEvents): RunEvents {
  return {
    phaseStarted: () => undefined,
    progress: () => undefined,
    phaseFinished: () => undefined,
    retrying: (entity, notice) => events.retrying(entity, notice),
    warning: (message) => events.warning(message),
    info: (message) => events.info(message),
  };
}
