/**
 * `sync`'s body over the run: rounds of pull, import and verify (sync-round.ts) every `intervalMs`
 * until stopped, or with `final` one last round whose verify reads the whole export: the cutover.
 * Everything a round leaves is in the state the three commands keep (the pull's journal, the
 * checkpoint, the run log), so a sync killed at any point and started again loses and doubles nothing.
 */
import { ledgerView } from '../../checkpoint/ledger.js';
import { ExitCode, InterruptedError } from '../../errors.js';
import type { Run, RunEnd } from '../run/run.js';
import { lastSyncRound, type SyncRoundLine } from './sync-lag.js';
import { type RoundOptions, runRound } from './sync-round.js';

export interface SyncOptions extends Omit<RoundOptions, 'round' | 'newestVerifiedMs' | 'lastRoundGood'> {
  /** The wait between the end of a round and the start of the next. */
  intervalMs: number;
  /** Stop after this many rounds (tests, a CI job that syncs a while); none: until stopped. */
  maxRounds?: number;
}

export interface SyncSummary {
  /** `stopped`: between rounds, nothing left half done; `interrupted`: within a round (run again). */
  status: 'stopped' | 'completed' | 'interrupted' | 'failed' | 'cutover-complete' | 'cutover-incomplete';
  exitCode: number;
  final: boolean;
  rounds: SyncRoundLine[];
  /** The ledger's status line after the last round (with `final`: whether the cutover is complete). */
  statusLine: string;
  state: string;
  error?: { code: string; message: string; hint?: string };
}

export async function syncInRun(run: Run, options: SyncOptions): Promise<SyncSummary> {
  const resume = await lastSyncRound(run.config.checkpoint);
  let { newestVerifiedMs, lastRoundGood } = resume;
  const rounds: SyncRoundLine[] = [];
  let status: SyncSummary['status'] = 'completed';
  let exitCode: number = ExitCode.ok;
  let error: SyncSummary['error'];
  for (let round = resume.round + 1; ; round++) {
    let result: Awaited<ReturnType<typeof runRound>>;
    try {
      result = await runRound(run, { ...options, round, newestVerifiedMs, lastRoundGood });
    } catch (err) {
      // A step stopped by Ctrl+C may end in its own error (an aborted request): still a stop.
      if (!(err instanceof InterruptedError) && !run.stop.aborted) throw err;
      status = 'interrupted';
      exitCode = ExitCode.interrupted;
      break;
    }
    const imported = result.import;
    if (imported.status === 'failed' || imported.status === 'interrupted' || run.stop.aborted) {
      // A round cut short writes no line: the next sync does it again from the saved state.
      status = imported.status === 'failed' ? 'failed' : 'interrupted';
      exitCode = imported.status === 'failed' ? imported.exitCode : ExitCode.interrupted;
      error = imported.error;
      break;
    }
    newestVerifiedMs = result.newestVerifiedMs;
    lastRoundGood = result.verify !== undefined && result.line.notAcross === 0;
    rounds.push(result.line);
    run.log.event('sync-round', { ...result.line });
    run.events.info(describeRound(result.line));
    if (options.final) break;
    if (options.maxRounds !== undefined && rounds.length >= options.maxRounds) break;
    // On the run's clock: a test's virtual one lets rounds follow each other at once.
    await run.clock.sleep(options.intervalMs, run.stop);
    if (run.stop.aborted) {
      status = 'stopped';
      break;
    }
  }
  const view = ledgerView(run.ledger?.snapshot);
  if (options.final && status === 'completed') {
    const last = rounds.at(-1);
    const complete = view.state === 'complete' && view.verified?.current === true && view.verified.ok;
    status = complete && last?.notAcross === 0 ? 'cutover-complete' : 'cutover-incomplete';
    exitCode = status === 'cutover-complete' ? ExitCode.ok : ExitCode.rejected;
  }
  return { status, exitCode, final: options.final, rounds, statusLine: view.statusLine, state: view.state, error };
}

/** The run log's end line of a sync: its outcome and rounds (each also has its `sync-round` line). */
export function syncEnd(summary: SyncSummary): RunEnd {
  return { status: summary.status, fields: { exitCode: summary.exitCode, rounds: summary.rounds.length } };
}

const seconds = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);

/** One line a round: what crossed, and how far the service is behind the source. */
export function describeRound(line: SyncRoundLine): string {
  const v = line.verified;
  const lag = line.lagMs === undefined ? 'lag unknown (no message verified yet)' : `lag ${seconds(line.lagMs)}`;
  const newest = line.newestPulledAt ? ` (newest on the source ${line.newestPulledAt}` : '';
  const verified = line.newestVerifiedAt ? `, on the service ${line.newestVerifiedAt})` : newest ? ')' : '';
  const gaps = v.missing + v.different > 0 ? ` (${v.missing} missing, ${v.different} different)` : '';
  const files = line.unchangedFiles ?? 0;
  const unchanged = files > 0 ? `${files} file${files === 1 ? '' : 's'} unchanged (not read again)` : '';
  const crossed = line.imported + line.alreadyPresent + line.rejected;
  const imported =
    crossed === 0 && unchanged
      ? `nothing new: ${unchanged}`
      : `imported ${line.imported}, already there ${line.alreadyPresent}, rejected ${line.rejected}`;
  const older = v.filesNotRead ?? 0;
  // The verify's own reading: message files it left unread as older than its window.
  const unread = older > 0 ? `; verify did not read ${older} older message file${older === 1 ? '' : 's'}` : '';
  const tail = `${crossed > 0 && unchanged ? `; ${unchanged}` : ''}${unread}`;
  return (
    `${line.final ? 'final round' : `round ${line.round}`}: ${imported}; verified ${v.present} of ${v.expected}` +
    `${gaps}; ${lag}${newest}${verified}; ${line.notAcross} not yet across; took ${seconds(line.tookMs)}${tail}`
  );
}
