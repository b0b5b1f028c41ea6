import pLimit from 'p-limit';
import type { CheckpointStore } from '../checkpoint/store.js';
import type { FileProgress } from '../checkpoint/file-progress.js';
import type { EntityName, MappedRecord, SourceItem, SourceProblem, SourceRecord } from '../entities/types.js';
import { InterruptedError } from '../errors.js';
import { ExportIndex } from '../validate/index.js';
import { duplicateIdProblem } from '../validate/duplicate-problems.js';
import { checkRecord, hasError } from './check-record.js';
import { emptyCounts, type EntityCounts, type RunEvents } from './events.js';
import { checkFingerprint } from './fingerprint.js';
import { createMapper, mapperOptionsFor } from './map.js';
import { readInputBatches, type EntityPlan, type RecordInput } from './plan.js';
import type { RejectEntry, RejectsWriter } from './rejects.js';
import type { BatchOutcome, BatchSender } from './send-batch.js';

export interface ImportRun {
  plans: EntityPlan[];
  checkpoint: CheckpointStore;
  rejects: RejectsWriter;
  sender: BatchSender;
  events: RunEvents;
  batchSize: number;
  concurrency: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  nowSec: number;
  /** Soft stop (first Ctrl+C): take no new batches, let the ones in flight finish. */
  stop: AbortSignal;
  /** Count records before each phase, for a progress bar's total (a terminal run; CI needs no ETA). */
  estimateTotals?: boolean;
}

const NOT_SENT = Symbol('not sent');
/**
 * Rejects a range may hold back before it is sent short: its lines wait in memory for its
 * acknowledgement, and a file of nothing but bad records must not gather them all.
 */
const MAX_HELD_REJECTS = 1000;

/** What reading a range found besides the records it sends: written and counted when it is acknowledged. */
interface HeldOutcomes {
  rejects: RejectEntry[];
  skipped: number;
}

export type RunCounts = Partial<Record<EntityName, EntityCounts>>;

/** A run of an entity's phase over one file: tiles the file's ordinals into batch ranges. */
interface FileCursor {
  input: RecordInput;
  progress: FileProgress;
  /** Start of the next batch's range: every ordinal below it belongs to a range already handed out. */
  rangeStart: number;
  nextOrdinal: number;
}

/**
 * The import: phases in order (users, groups, members, messages), each read -> map -> check ->
 * batch -> send -> checkpoint, with at most `concurrency` batches in flight. Returns this run's
 * counts (filled into `counts` as phases go). Throws the first fatal error (after in-flight batches settle and the checkpoint is saved).
 */
export async function runImport(run: ImportRun, counts: RunCounts = {}): Promise<RunCounts> {
  const configured = new Set(run.plans.map((p) => p.entity.name));
  // Message ids through the fixed-size filter: memory must not grow with the export (issue 5).
  const index = new ExportIndex({ configured, nowSec: run.nowSec, messageIds: 'bloom' });
  for (const message of index.uncheckedReferences()) run.events.warning(message);
  for (const plan of run.plans) {
    counts[plan.entity.name] = emptyCounts();
    await runPhase(run, plan, index, counts[plan.entity.name]!);
    if (run.stop.aborted) throw new InterruptedError();
  }
  for (const p of index.finish()) run.events.warning(`${p.file}:${p.line}: ${p.entity} ${p.id}: ${p.message} [${p.rule}]`);
  return counts;
}

/** Runs one entity's phase, filling `counts` as it goes (so an interrupted run still reports them). */
async function runPhase(run: ImportRun, plan: EntityPlan, index: ExportIndex, counts: EntityCounts): Promise<void> {
  const { entity } = plan;
  const started = Date.now();
  const limit = pLimit(run.concurrency);
  const inFlight = new Set<Promise<void>>();
  /** Batches sent and not yet answered: where a suspect duplicate's first record may still be. */
  const unanswered = new Set<MappedRecord[]>();
  let failure: unknown;
  const totals = run.checkpoint.totals(entity.name);
  let held: HeldOutcomes = { rejects: [], skipped: 0 };

  /**
   * Acknowledges a range once its batch is answered, writing its rejects in the same tick: the
   * checkpoint's mark of the rejects file then covers exactly the ranges it acknowledges (rejects.ts). The save runs outside the request slots and is not waited for: writes are spaced
   * out, and a failed one stops the run all the same.
   */
  const settle = (outcome: BatchOutcome | undefined, found: HeldOutcomes, progress: FileProgress, start: number, end: number) => {
    for (const entry of found.rejects) run.rejects.write(entry);
    counts.rejected += found.rejects.length;
    totals.rejected += found.rejects.length;
    counts.skipped += found.skipped;
    totals.skipped += found.skipped;
    if (outcome) addOutcome(outcome);
    progress.ack(start, end);
    run.checkpoint.saveSoon().catch((err: unknown) => {
      failure ??= err;
    });
    counts.elapsedMs = Date.now() - started;
    run.events.progress(entity.name, counts);
  };
  const addOutcome = (outcome: BatchOutcome) => {
    for (const r of outcome.rejected) run.rejects.write(rejectOf(r.record, r.code, r.message));
    counts.imported += outcome.imported;
    counts.alreadyPresent += outcome.alreadyPresent;
    counts.rejected += outcome.rejected.length;
    counts.requests += outcome.requests;
    counts.retries += outcome.retries;
    totals.imported += outcome.imported;
    totals.alreadyPresent += outcome.alreadyPresent;
    totals.rejected += outcome.rejected.length;
  };

  /** Hands the range [cursor.rangeStart, end) to the sender; waiting while the pool is full is the back-pressure on reading. */
  const dispatch = async (records: MappedRecord[], cursor: FileCursor, end: number) => {
    const start = cursor.rangeStart;
    cursor.rangeStart = end;
    const found = held;
    held = { rejects: [], skipped: 0 };
    // Only the request holds a slot of the pool: the checkpoint write (an fsync) must not idle a connection.
    // A batch still queued when Ctrl+C comes is not sent (and so not acknowledged): the next run reads it again.
    const send = async (): Promise<BatchOutcome | typeof NOT_SENT> => (run.stop.aborted ? NOT_SENT : run.sender.send(entity, records));
    const sent = records.length > 0 ? limit(send) : Promise.resolve(undefined);
    unanswered.add(records);
    void sent.finally(() => unanswered.delete(records)).catch(() => undefined);
    const task = sent
      .then((outcome) => (outcome === NOT_SENT ? undefined : settle(outcome, found, cursor.progress, start, end)))
      .catch((err: unknown) => {
        failure ??= err;
      });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
    while (inFlight.size >= run.concurrency * 2 && failure === undefined) await Promise.race(inFlight);
  };

  /**
   * Counts one item and decides its fate: a record to send, or undefined when it was acknowledged by an
   * earlier run, is skipped, or is rejected (held, and written when its range is acknowledged).
   */
  const admit = (item: SourceItem, cursor: FileCursor, mapper: (r: SourceRecord) => MappedRecord): MappedRecord | undefined => {
    if (item.kind === 'problem') {
      if (item.ordinal !== undefined) {
        counts.read++;
        cursor.nextOrdinal = item.ordinal + 1;
        if (cursor.progress.isAcked(item.ordinal)) {
          counts.resumed++;
          return undefined;
        }
      }
      held.rejects.push(rejectOfProblem(entity.name, item));
      return undefined;
    }
    counts.read++;
    cursor.nextOrdinal = item.ordinal + 1;
    const record = mapper(item);
    const acked = cursor.progress.isAcked(item.ordinal);
    if (record.skip) {
      if (acked) counts.resumed++;
      else held.skipped++;
      return undefined;
    }
    // Checked even when acknowledged before: the index must see every id for references and duplicates.
    const problems = checkRecord(record, index, run.nowSec);
    if (acked) {
      counts.resumed++;
      return undefined;
    }
    if (hasError(problems)) {
      const first = problems.find((p) => p.severity === 'error')!;
      held.rejects.push({ ...rejectOf(record, first.rule, first.message), field: first.field });
      return undefined;
    }
    return record;
  };

  /**
   * A message the id filter may have seen before is sent, and an already-exists answer then marks it
   * as the duplicate. That holds only once its first record has been answered: while that one is
   * still in this batch or in flight, the two could be stored in either order, so it is judged here.
   */
  const rejectKnownDuplicate = (record: MappedRecord, batch: MappedRecord[]): boolean => {
    const first = earlierWithId(record.id, [batch, ...unanswered]);
    if (first === undefined) return false;
    const p = duplicateIdProblem(entity.name, record.id, first.id === record.id, `${first.file}:${first.line}`);
    held.rejects.push({ ...rejectOf(record, p.rule, p.message), field: p.field });
    return true;
  };

  run.events.phaseStarted(entity.name, run.estimateTotals ? await estimatePhase(plan, run.stop) : undefined);
  for (const input of plan.inputs) {
    if (failure !== undefined || run.stop.aborted) break;
    let cursor: FileCursor;
    try {
      cursor = await openCursor(run, entity.name, input);
    } catch (err) {
      // A file gone since the run began: the batches in flight still settle and the checkpoint is saved.
      failure = err;
      break;
    }
    const mapper = createMapper(mapperOptionsFor(entity, plan.source, run));
    let batch: MappedRecord[] = [];
    try {
      reading: for await (const items of readInputBatches(input, { signal: run.stop, entity: entity.name })) {
        for (const item of items) {
          if (failure !== undefined || run.stop.aborted) break reading;
          const record = admit(item, cursor, mapper);
          if (record === undefined || (record.duplicateSuspect && rejectKnownDuplicate(record, batch))) {
            if (held.rejects.length < MAX_HELD_REJECTS) continue;
          } else batch.push(record);
          if (batch.length >= run.batchSize || held.rejects.length >= MAX_HELD_REJECTS) {
            await dispatch(batch, cursor, cursor.nextOrdinal);
            batch = [];
          }
        }
      }
    } catch (err) {
      // A file that cannot be read on (gone, unreadable): as above, what is in flight settles and is saved.
      failure ??= err;
    }
    if (failure !== undefined || run.stop.aborted) {
      // Records read but not dispatched stay unacknowledged: the next run reads them again.
      break;
    }
    await dispatch(batch, cursor, cursor.nextOrdinal);
    cursor.progress.data.complete = true;
  }
  await Promise.allSettled([...inFlight]);
  counts.elapsedMs = Date.now() - started;
  if (failure === undefined && !run.stop.aborted) run.checkpoint.markPhaseDone(entity.name);
  await run.checkpoint.save();
  run.events.phaseFinished(entity.name, counts, failure === undefined && !run.stop.aborted);
  if (failure !== undefined) throw failure;
}

/** The phase's record count when every input can tell it cheaply; otherwise unknown. */
async function estimatePhase(plan: EntityPlan, signal: AbortSignal): Promise<number | undefined> {
  let total = 0;
  for (const input of plan.inputs) {
    if (!input.estimate) return undefined;
    total += await input.estimate(signal).catch(() => Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
}

async function openCursor(run: ImportRun, entity: EntityName, input: RecordInput): Promise<FileCursor> {
  let progress = run.checkpoint.fileProgress(entity, input.display);
  if (input.path) {
    const { now, rewritten } = await checkFingerprint({ path: input.path, display: input.display }, progress.data.fingerprint);
    if (rewritten) {
      run.events.warning(`${input.display} changed in place since the last run: reading it again from the start (records the service already has count as already present)`);
      progress = run.checkpoint.resetFile(entity, input.display);
    }
    progress.data.fingerprint = now;
  }
  progress.data.complete = false;
  return { input, progress, rangeStart: 0, nextOrdinal: 0 };
}

function earlierWithId(id: string, batches: Iterable<MappedRecord[]>): MappedRecord | undefined {
  const lower = id.toLowerCase();
  for (const batch of batches) for (const record of batch) if (record.id.toLowerCase() === lower) return record;
  return undefined;
}

function rejectOf(record: MappedRecord, code: string, message: string): RejectEntry {
  return { entity: record.entity, file: record.file, line: record.line, id: record.id, code, message, record: record.source };
}

function rejectOfProblem(entity: EntityName, p: SourceProblem): RejectEntry {
  return { entity, file: p.file, line: p.line, code: p.rule, message: p.message };
}
