import { type Clock, systemClock } from '../../clock.js';
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { EntityName, MappedRecord, SourceItem, SourceProblem } from '../../entities/types.js';
import { InterruptedError } from '../../errors.js';
import { CONTENT_BLOOM_BYTES, contentHash, ExportIndex } from '../../rules/index.js';
import { duplicateIdProblem } from '../../rules/duplicate-problems.js';
import { checkRecord, hasError } from '../../rules/check-record.js';
import { emptyCounts, type EntityCounts, type RunCounts, type RunEvents } from '../events.js';
import { EMPTY_FILE_RULE } from '../../sources/source-items.js';
import { BAD_SLOT, FILE_PROBLEM, ItemSlots, SKIP } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { idCollisionsOf, readInputBatches, type EntityPlan } from '../../sources/plan.js';
import type { ReadEnd } from '../../sources/types.js';
import type { IdLog } from '../../checkpoint/id-log.js';
import type { RejectEntry, RejectsWriter } from '../../checkpoint/rejects-file.js';
import { Batcher, type AnsweredBatch } from './batcher.js';
import { fateOfAcked, slotHash, type RejectedSlot } from './open-rejects.js';
import { PhaseTally, rejectOfRecord } from './phase-tally.js';
import type { BatchSender } from './send-batch.js';
import { offerReplayItems, type ReplaySource } from './replay-pass.js';
import type { MediaHook } from './media-start.js';
import { BEYOND_RETENTION, type ParentEntity } from '../../entities/types.js';
import { heldForMedia, mediaReject } from './media-pass.js';
import { ParentHolds } from './parent-holds.js';
import { doneSlots, type FileCursor, noteSentAt, openCursor, recordEnd } from './file-cursor.js';

export interface ImportRun {
  plans: EntityPlan[];
  checkpoint: CheckpointStore;
  rejects: RejectsWriter;
  /** Where every accepted record is logged, as its range is acknowledged (absent: not logged). */
  idLog?: IdLog;
  sender: BatchSender;
  events: RunEvents;
  batchSize: number;
  concurrency: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** Messages sent before this UNIX second are skipped as beyond the service's retention (retention.ts). */
  retentionCutoffSec?: number;
  nowSec: number;
  /** Soft stop (first Ctrl+C): take no new batches, let the ones in flight finish. */
  stop: AbortSignal;
  /** Called on a phase's first failure: the sends still in flight or retrying are abandoned. */
  abandonSends?(): void;
  /** Count records before each phase, for the total, percent and ETA of the progress shown. */
  estimateTotals?: boolean;
  /** `replay`: edited records from the rejects file, sent after each phase's export records. */
  replay?: ReplaySource;
  /** media: the message phase waits for the media pass, and its records' attachments are rewritten. */
  media?: MediaHook;
  /** A phase's elapsed time (its rate and ETA) is on the run's clock; default the system's. */
  clock?: Clock;
}

/** The cross-record state every phase shares: the export's ids and the parents not in. */
interface CrossChecks {
  index: ExportIndex;
  holds: ParentHolds;
}

/**
 * The import: phases in order (users, groups, members, messages), each read -> map -> check ->
 * batch -> send -> checkpoint, with at most `concurrency` batches in flight. Returns this run's
 * counts (filled into `counts` as phases go). Throws the first fatal error (after in-flight batches
 * settle and the checkpoint is saved).
 */
export async function runImport(run: ImportRun, counts: RunCounts = {}): Promise<RunCounts> {
  const configured = new Set(run.plans.map((p) => p.entity.name));
  // Message ids through the fixed-size filter: memory must not grow with the export.
  const contentBloomBytes = CONTENT_BLOOM_BYTES;
  const knownIds = run.plans[0]?.source.ids;
  const idCollisions = idCollisionsOf(run.plans);
  const blockedBefore = ParentHolds.before(run.checkpoint, knownIds);
  const options = { configured, nowSec: run.nowSec, contentBloomBytes, knownIds, idCollisions, blockedBefore };
  const index = new ExportIndex({ ...options, messageIds: 'bloom' });
  const holds = new ParentHolds(run.checkpoint, index);
  for (const message of index.uncheckedReferences()) run.events.warning(message);
  let allRead = true;
  for (const plan of run.plans) {
    counts[plan.entity.name] = emptyCounts();
    allRead = (await runPhase(run, plan, { index, holds }, counts[plan.entity.name]!)) && allRead;
    if (run.stop.aborted) throw new InterruptedError();
  }
  if (allRead) {
    holds.runRead();
    await run.checkpoint.save();
  }
  for (const p of index.finish())
    run.events.warning(`${p.file}:${p.line}: ${p.entity} ${p.id}: ${p.message} [${p.rule}]`);
  return counts;
}

/**
 * Runs one entity's phase, filling `counts` as it goes (so an interrupted run still reports them).
 * True when every input was read to its end.
 */
async function runPhase(run: ImportRun, plan: EntityPlan, cross: CrossChecks, counts: EntityCounts): Promise<boolean> {
  const { entity } = plan;
  const { index, holds } = cross;
  const isParent = entity.name === 'users' || entity.name === 'groups';
  const clock = run.clock ?? systemClock;
  const started = clock.now();

  /**
   * A batch's answer is counted and its ranges acknowledged in one tick, rejects written with them: the
   * checkpoint's mark of the rejects file then covers exactly the ranges it acknowledges
   * (rejects-file.ts). The save is waited for only when every batch is written (checkpointIntervalMs 0):
   * then a kill re-sends at most the batches unsettled, in flight or waiting for their write. Otherwise
   * writes are spaced out, and a failed one stops the run all the same.
   */
  const tally = new PhaseTally(counts, run.checkpoint.totals(entity.name), run.rejects, run.idLog);
  const settle = (answer: AnsweredBatch): undefined | Promise<void> => {
    tally.answered(answer);
    if (isParent) holds.answered(answer);
    const write: Promise<void> = run.checkpoint.saveSoon().catch((err: unknown) => batcher.fail(err));
    counts.elapsedMs = clock.now() - started;
    run.events.progress(entity.name, counts);
    return run.checkpoint.writesEveryBatch ? write : undefined;
  };
  const batcher = new Batcher({
    entity,
    sender: run.sender,
    batchSize: run.batchSize,
    concurrency: run.concurrency,
    stop: run.stop,
    onAnswered: settle,
    onFailure: run.abandonSends,
  });

  /**
   * Counts one item and decides its fate: a record to send, or undefined when it was done by an earlier
   * run, is skipped, or is rejected (held, and written when its range is acknowledged). A slot an
   * earlier run rejected is done only once its record got in (open-rejects.ts).
   */
  const admit = (item: SourceItem, cursor: FileCursor, slots: ItemSlots): MappedRecord | undefined => {
    const kind = slots.kindOf(item);
    if (kind === FILE_PROBLEM) {
      const problem = item as SourceProblem;
      if (problem.rule === EMPTY_FILE_RULE) run.events.warning(`${problem.file}: ${problem.message}`);
      else {
        cursor.fileProblem = true;
        batcher.hold(rejectOfProblem(entity.name, problem), noSlot(cursor, problem));
      }
      return undefined;
    }
    counts.read++;
    const ordinal = slots.ordinal;
    cursor.nextOrdinal = ordinal + 1;
    const { progress } = cursor;
    const acked = progress.isAcked(ordinal);
    let fate = acked ? fateOfAcked(progress, ordinal, item) : undefined;
    // Marked too old by a run stopped before its answer: never counted, so read as new.
    if (!acked && progress.data.old !== undefined) progress.unmarkOld(ordinal);
    // Skipped as too old by an earlier run, and the window allows it now: sent as a new record.
    else if (fate === 'done' && kind !== SKIP && kind !== BAD_SLOT && progress.isOld(ordinal)) fate = undefined;
    const slot = () => ({ progress, ordinal, hash: slotHash(item) });
    // An open slot whose line is as it was rejected, and which the rejects file holds: the replay pass
    // sends the rejects file's record for it instead, and counts it there.
    const replayed =
      (fate === 'still-rejected' || fate === 'retry') &&
      run.replay?.covers(entity.name, cursor.input.display, ordinal) === true &&
      progress.openAt(ordinal)!.hash === slotHash(item);
    if (replayed) counts.read--;
    if (kind === BAD_SLOT) {
      if (replayed) return undefined;
      if (fate === 'done') counts.resumed++;
      else if (fate === 'still-rejected') tally.stillRejected();
      else batcher.hold(rejectOfProblem(entity.name, item as SourceProblem), slot());
      return undefined;
    }
    if (kind === SKIP) {
      const reason = slots.record!.skip!;
      if (isParent) index.blocked.block(slots.record!, `skipped:${reason}`);
      if (replayed) return undefined;
      if (fate !== 'done' && reason === BEYOND_RETENTION) progress.markOld(ordinal);
      if (fate === undefined) batcher.holdSkip(reason);
      else if (progress.openAt(ordinal) === undefined) counts.resumed++;
      else {
        // Rejected before, skipped now (marked deleted since): it is no longer a record to send.
        progress.resolve(ordinal);
        tally.skip(reason);
      }
      return undefined;
    }
    const record = slots.record!;
    // Checked even when done before: the index must see every id for references and duplicates.
    const problems = checkRecord(record, index, run.nowSec);
    // Not in (yet): a replayed parent is released by its answer in the replay pass.
    if (isParent && (replayed || fate === 'still-rejected'))
      index.blocked.block(record, progress.openAt(ordinal)!.code);
    if (replayed) return undefined;
    // Done before, unless its parent was held then: it may never have been sent.
    if (fate === 'done' && (!record.heldBefore || hasError(problems))) {
      counts.resumed++;
      return undefined;
    }
    if (fate === 'still-rejected') {
      tally.stillRejected();
      return undefined;
    }
    if (hasError(problems)) {
      const first = problems.find((p) => p.severity === 'error')!;
      if (isParent) index.blocked.block(record, first.rule, problems);
      batcher.hold({ ...rejectOfRecord(record, first.rule, first.message), field: first.field }, slot());
      return undefined;
    }
    if (record.blockedBy !== undefined) {
      record.blockedBy.held[entity.name as 'members' | 'messages']++;
      // Acknowledged before while its parent was out: held as it was; a reject of it gives way to the hold.
      if (fate === 'done') tally.stillBlocked();
      else {
        if (fate === 'retry') progress.resolve(ordinal);
        batcher.holdBlocked();
      }
      return undefined;
    }
    if (record.media && heldForMedia(run.checkpoint, record)) {
      batcher.hold(mediaReject(record), slot());
      return undefined;
    }
    // An exact copy of an earlier record (ExportIndex marked it) is counted as skipped.
    if (record.skip !== undefined) batcher.holdSkip(record.skip);
    else if (!record.duplicateSuspect || !rejectKnownDuplicate(record, slot())) return record;
    return undefined;
  };

  /**
   * A message the id filter may have seen before is sent, and an already-exists answer then marks it
   * as the duplicate. That holds only once its first record has been answered: while that one is
   * still gathered or in flight, the two could be stored in either order, so it is judged here: an
   * exact copy is skipped (`duplicate`), a different record under the same muid rejected.
   */
  const rejectKnownDuplicate = (record: MappedRecord, slot: RejectedSlot): boolean => {
    const first = batcher.earlierWithId(record.id);
    if (first === undefined) return false;
    if (first.id === record.id && contentHash(first.payload) === contentHash(record.payload)) {
      batcher.holdSkip('duplicate');
      return true;
    }
    const p = duplicateIdProblem(entity.name, record.id, first.id === record.id, `${first.file}:${first.line}`);
    batcher.hold({ ...rejectOfRecord(record, p.rule, p.message), field: p.field }, slot);
    return true;
  };

  const media = entity.name === 'messages' ? run.media : undefined;
  if (media) await media.ready;
  if (run.stop.aborted) return false;
  const total = run.estimateTotals ? await estimatePhase(run, plan) : undefined;
  run.events.phaseStarted(entity.name, total);
  for (const input of plan.inputs) {
    if (batcher.stopped) break;
    let cursor: FileCursor;
    try {
      cursor = await openCursor(run, entity.name, input);
    } catch (err) {
      // A file gone since the run began: the batches in flight still settle and the checkpoint is saved.
      batcher.fail(err);
      break;
    }
    // The slots before where the reading starts were done by an earlier run: counted as a reading of
    // them would count them.
    const doneBefore = cursor.from?.ordinal ?? 0;
    counts.read += doneBefore;
    counts.resumed += doneBefore;
    if (cursor.unchanged) {
      counts.unchangedFiles = (counts.unchangedFiles ?? 0) + 1;
      run.events.progress(entity.name, counts);
      continue;
    }
    const map = createMapper(mapperOptionsFor(entity, plan.source, run));
    const slots = new ItemSlots(media ? (item) => media.rewrite(map(item), input) : map);
    try {
      const onEnd = (end: ReadEnd) => {
        cursor.ended = end;
      };
      const options = { signal: run.stop, entity: entity.name, from: cursor.from, onEnd };
      reading: for await (const items of readInputBatches(input, options)) {
        for (const item of items) {
          if (batcher.stopped) break reading;
          const record = admit(item, cursor, slots);
          noteSentAt(cursor, slots);
          if (await batcher.offer(record, cursor.progress, cursor.rangeStart, cursor.nextOrdinal)) {
            cursor.rangeStart = cursor.nextOrdinal;
          }
        }
      }
    } catch (err) {
      // A file that cannot be read on (gone, unreadable): as above, what is in flight settles and is saved.
      batcher.fail(err);
    }
    // Records read but not dispatched stay unacknowledged: the next run reads them again.
    if (batcher.stopped) break;
    if (!cursor.fileProblem) cursor.progress.resolve(FILE_SLOT);
    try {
      await recordEnd(cursor);
    } catch (err) {
      batcher.fail(err);
      break;
    }
    batcher.closeFile(cursor.progress, cursor.rangeStart, cursor.nextOrdinal);
  }
  if (run.replay && !batcher.stopped) {
    // The export's answers first: a slot its own (fixed) line closed meanwhile is not sent again.
    await batcher.flush();
    await batcher.drain();
    const map = createMapper(mapperOptionsFor(entity, plan.source, run));
    // The rejects file's lines meet the media pass's answers as the export's would.
    const inputOf = new Map(plan.inputs.map((input) => [input.display, input]));
    const slots = new ItemSlots((item) => {
      const input = media && inputOf.get(item.file);
      return input ? media.rewrite(map(item), input) : map(item);
    });
    const { checkpoint, nowSec } = run;
    const items = run.replay.itemsFor(entity.name);
    const pass = { entity: entity.name, items, checkpoint, batcher, tally, index, slots, counts, nowSec };
    await offerReplayItems({ ...pass, replay: run.replay });
  }
  if (!batcher.stopped) await batcher.flush();
  await batcher.drain();
  // Every record read is accounted for: what a stop left unanswered is said, not dropped.
  const { read, imported, alreadyPresent, rejected, skipped, resumed, blocked } = counts;
  counts.unsent = read - imported - alreadyPresent - rejected - skipped - resumed - blocked;
  counts.elapsedMs = clock.now() - started;
  const completed = !batcher.stopped;
  if (completed) {
    run.checkpoint.markPhaseDone(entity.name);
    // The export's size as this reading to its end met it (replayed records stand in for their slots).
    run.checkpoint.totals(entity.name).inExport = counts.read;
    if (isParent) holds.parentsRead(entity.name as ParentEntity);
    else holds.childrenRead(entity.name, counts.blocked);
  }
  await run.checkpoint.save();
  run.events.phaseFinished(entity.name, counts, completed);
  if (batcher.failure !== undefined) throw batcher.failure;
  return completed;
}

/** The phase's record count when every input can tell it cheaply; otherwise unknown. */
async function estimatePhase(run: ImportRun, plan: EntityPlan): Promise<number | undefined> {
  let total = 0;
  for (const input of plan.inputs) {
    // A file not read again is not counted again: the checkpoint knows its slots.
    const known = await doneSlots(run, plan.entity.name, input).catch(() => undefined);
    if (known !== undefined) total += known;
    else if (!input.estimate) return undefined;
    else total += await input.estimate(run.stop).catch(() => Number.NaN);
  }
  return Number.isFinite(total) ? total : undefined;
}

/**
 * A file's own problem (its header, a break that ends it) has no slot of its own: it is kept open at
 * slot -1 until a reading of the file no longer meets it.
 */
const FILE_SLOT = -1;
const noSlot = (cursor: FileCursor, problem: SourceProblem): RejectedSlot => ({
  progress: cursor.progress,
  ordinal: FILE_SLOT,
  hash: slotHash(problem),
});

function rejectOfProblem(entity: EntityName, p: SourceProblem): RejectEntry {
  return { entity, file: p.file, line: p.line, ordinal: p.ordinal, code: p.rule, message: p.message };
}
