import { mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import type { EntityName, MappedRecord } from '../../entities/types.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { RunEvents } from '../events.js';
import type { Run } from '../run/run.js';
import { readOutsideExport, readServiceIds } from './service-id-table.js';
import { runVerify } from './verify-pass.js';
import type { VerifyResult } from './verify-result.js';
import type { VerifiedBefore } from './window-inputs.js';

export interface VerifyInRunOptions {
  plans: EntityPlan[];
  entities?: ReadonlySet<EntityName>;
  sample: number;
  sinceSec?: number;
  /** A sync round's: what the last good round verified (window-inputs.ts). */
  verifiedBefore?: VerifiedBefore;
  onMissing?(record: MappedRecord): Promise<void>;
}

/**
 * One reading of the service against the export, inside its run: the run's REST client (its one
 * limiter for reads and deletes, the run's retry policy); a Ctrl+C ends the reads under way at once.
 */
export async function verifyInRun(run: Run, options: VerifyInRunOptions): Promise<VerifyResult> {
  const { config } = run;
  const counts = { requests: 0, retries: 0 };
  const counter = run.requests('verify');
  // Retries are shown under the phase reading the service at the time.
  let current: EntityName = 'users';
  const shown = run.events;
  // Methods named one by one: a reporter is a class, whose methods a spread would not copy.
  const events: RunEvents = {
    phaseStarted: (entity, expected) => {
      current = entity;
      shown.phaseStarted(entity, expected);
    },
    progress: (entity, c) => shown.progress(entity, c),
    phaseFinished: (entity, c, completed) => shown.phaseFinished(entity, c, completed),
    retrying: (entity, notice) => shown.retrying(entity, notice),
    warning: (message) => shown.warning(message),
    info: (message) => shown.info(message),
  };
  const client = await run.clients.restClient({
    events: {
      requestStarted: (isRetry) => {
        counter.requestStarted(isRetry);
        counts.requests++;
        if (isRetry) counts.retries++;
      },
      answered: (status, latencyMs) => counter.answered(status, latencyMs),
      retrying: (notice) => shown.retrying(current, notice),
    },
  });
  // Its samples carry the reads' pace (requests, 429s, latency, the REST limiter's rate), no records.
  run.sample({}, () => run.clients.restLimiter.currentRate);
  // Where the import kept the service's message ids and what it sent from outside the export.
  const idLog = idLogPathOf(config.checkpoint);
  const spillDir = await spillDirOf(run);
  return runVerify({
    plans: options.plans,
    client,
    entities: options.entities,
    nowSec: Math.floor(Date.now() / 1000),
    importSoftDeleted: config.importSoftDeleted,
    sinceSec: options.sinceSec,
    retentionDays: config.retentionDays,
    sample: options.sample,
    loadIdLog: () => readServiceIds(idLog),
    outsideExport: await readOutsideExport(idLog),
    events,
    signal: run.stop,
    requests: () => counts,
    onMissing: options.onMissing,
    clock: run.clock,
    spillDir,
    partRecords: partRecordsOf(run.env.MIGRATE_VERIFY_PART_RECORDS),
    checkpoint: run.ledger,
    verifiedBefore: options.verifiedBefore,
  }).finally(() => rmdir(spillDir).catch(() => undefined));
}

/**
 * Beside the checkpoint: the user's disk, not a temp folder that may be small or in memory. With the
 * migration's lock held, what a killed verify left there (gigabytes at 10M records) is removed first;
 * the folder itself goes once empty.
 */
async function spillDirOf(run: Run): Promise<string> {
  const dir = `${path.resolve(run.config.checkpoint)}.verify`;
  if (run.ledger !== undefined) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** An internal knob for tests and the bench: a small part size makes a small export spill many parts. */
function partRecordsOf(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Puts a verdict over the whole export into the ledger (what the status line's proof rests on); a
 * stopped reading proves nothing and is left out.
 */
export function recordVerdict(run: Run, result: VerifyResult): void {
  if (!run.ledger || run.stop.aborted) return;
  const sum = (key: 'expected' | 'present' | 'missing' | 'different' | 'beyondRetention') =>
    Object.values(result.entities).reduce((n, v) => n + (v?.[key] ?? 0), 0);
  run.ledger.recordVerify({
    at: new Date().toISOString(),
    ok: result.ok,
    expected: sum('expected'),
    present: sum('present'),
    missing: sum('missing'),
    different: sum('different'),
    beyondRetention: sum('beyondRetention'),
  });
}

/** The run log's `verify-end` line: the figures per entity (not the lists), which the report shows. */
export function logVerifyEnd(run: Run, result: VerifyResult): void {
  const entities: Record<string, Record<string, number>> = {};
  const notShown: Record<string, string[]> = {};
  for (const [entity, v] of Object.entries(result.entities)) {
    const { expected, present, missing, different, extra, beyondRetention } = v;
    entities[entity] = { expected, present, missing, different, extra, beyondRetention };
    if (v.notShown?.length) notShown[entity] = v.notShown;
  }
  const shown = Object.keys(notShown).length > 0 ? { notShown } : {};
  run.log.event('verify-end', { entities, ...shown, requests: result.requests, repair: result.repair });
}
