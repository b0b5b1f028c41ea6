import { BEYOND_RETENTION, MISSING_PARENT, NO_PROBLEMS } from '../../entities/types.js';
import type { BlockedParent, MappedRecord, Problem, SourceProblem } from '../../entities/types.js';
import type { LocatedProblem, ValidateResult } from './validate-result.js';
import { ExportIndex } from '../../rules/index.js';
import { checkRecord, hasError, withCross } from '../../rules/check-record.js';
import { heldBackProblem } from '../../rules/blocked-parents.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { idCollisionsOf, readInputBatches, type EntityPlan, type RecordInput } from '../../sources/plan.js';
import { recordOfChecked, type MessageCheckTask } from './checked-columns.js';
import { readMessagesWithWorker } from './checked-messages.js';
import { BAD_SLOT, countsAsRead, FILE_PROBLEM, ItemSlots, SKIP } from '../item-slots.js';
import type { ResolvedFile } from '../../sources/types.js';
import { recheckDuplicates } from './recheck-duplicates.js';
import { isFileAtLeast, WORKER_MIN_BYTES } from '../../sources/worker-threshold.js';
import { EMPTY_FILE_RULE } from '../../sources/source-items.js';
import { KEEP_AT_MOST, ProblemTally } from './validate-tally.js';
import { cutoffDate, OLD_NAMED, retentionCutoff } from '../retention.js';
import type { MediaConfig } from '../../config/media-schema.js';
import type { ExportFolder } from '../../media/media-sources.js';
import { addHostCounts, countAttachmentHosts, expiringMediaOf, unlistedMediaOf } from './expiring-media.js';

export interface ValidateOptions {
  plans: EntityPlan[];
  nowSec: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** Stop after this many errors (0: never). */
  maxErrors: number;
  signal?: AbortSignal;
  /** The service's retention window: older messages are skipped and named (retention.ts); 0 or absent: unlimited. */
  retentionDays?: number;
  /**
   * What `media` carries: attachments on expiring hosts it does not, and with `media` set those on
   * hosts not on its list, are summed up (expiring-media.ts).
   */
  media?: MediaConfig;
  /** The export folder whose files `media.exportFiles` carries (a preset's media URLs point into it). */
  exportFolder?: ExportFolder;
  /** Bytes of the message ids' Bloom filter (tests make it tiny to force false positives); see IdBloomFilter. */
  bloomBytes?: number;
  /** NDJSON message files from this size on are read with a worker (checked-messages.ts); tests set 0 or Infinity. */
  messageWorkerMinBytes?: number;
}

/**
 * The dry run: the same read -> map -> check path as import, in import order so references resolve
 * against what came before, with nothing sent. Memory holds id sets (in ExportIndex), not records;
 * message ids only as a fixed-size Bloom filter, so it stays flat however many messages there are.
 * When the filter met a muid it may have seen before, the messages are read a second time (ids
 * only) to tell true duplicates from false positives; a clean export is read once.
 */
export async function runValidate(options: ValidateOptions): Promise<ValidateResult> {
  const configured = new Set(options.plans.map((p) => p.entity.name));
  const index = new ExportIndex({
    configured,
    nowSec: options.nowSec,
    messageIds: 'bloom',
    bloomBytes: options.bloomBytes,
    knownIds: options.plans[0]?.source.ids,
    idCollisions: idCollisionsOf(options.plans),
  });
  const result: ValidateResult = {
    errors: [],
    warnings: [],
    byRule: {},
    byEntity: {},
    recordsRead: 0,
    errorCount: 0,
    warningCount: 0,
    stoppedEarly: false,
    notChecked: index.uncheckedReferences(),
    beyondRetention: 0,
  };
  const tally = new ProblemTally(result, options.maxErrors);
  const cutoff = retentionCutoff(options.nowSec, options.retentionDays ?? 0);
  // The mapper skips old messages as import's does (beyond-retention); validate counts and names them.
  const mapRun = {
    importSoftDeleted: options.importSoftDeleted,
    sinceSec: options.sinceSec,
    retentionCutoffSec: cutoff,
  };
  // The first old messages by input and line: the worker's blocks report theirs out of reading order.
  const old: Array<{ input: number; file: string; line: number }> = [];
  const noteOld = (input: number, file: string, line: number) => {
    old.push({ input, file, line });
    if (old.length <= OLD_NAMED) return;
    old.sort((a, b) => a.input - b.input || a.line - b.line);
    old.length = OLD_NAMED;
  };
  let inputNo = -1;
  const hostCounts: Record<string, number> = {};
  // Items read so far over all entities: the order key the second reading shares.
  let seq = -1;
  let messagesFirstSeq = -1;
  let lastSuspectSeq = -1;
  // Each missing parent's one line, counted at its first child as a one-pass check would; its count at the end.
  const missingLines = new Map<BlockedParent, LocatedProblem>();

  outer: for (const plan of options.plans) {
    const entity = plan.entity;
    result.byEntity[entity.name] = { records: 0, errors: 0, warnings: 0, skipped: 0 };
    const entityCounts = result.byEntity[entity.name]!;
    const isParent = entity.name === 'users' || entity.name === 'groups';
    if (entity.name === 'messages') messagesFirstSeq = seq + 1;
    for (const input of plan.inputs) {
      const inputAt = ++inputNo;
      const slots = new ItemSlots(createMapper(mapperOptionsFor(entity, plan.source, mapRun)));
      const shared = entity.name === 'messages' && (await sharesWithWorker(input, options));
      // Two mappers (one a thread) each warn of an unknown field once: the first in file order is kept.
      const warnedUnknown = shared ? new Set<string>() : undefined;
      const batches = shared
        ? readMessagesWithWorker(workerTask(input.file!, plan, options), options.signal, (notes) => {
            result.beyondRetention += notes.beyondRetention ?? 0;
            for (const line of notes.beyondRetentionLines ?? []) noteOld(inputAt, input.display, line);
            if (notes.attachmentHosts) addHostCounts(hostCounts, notes.attachmentHosts);
          })
        : readInputBatches(input, { signal: options.signal, entity: entity.name, csvWorkerMinBytes: WORKER_MIN_BYTES });
      for await (const items of batches) {
        for (const item of items) {
          if (result.stoppedEarly || options.signal?.aborted) break outer;
          // Every item takes a seq, the order key recheck-duplicates.ts shares: its stop's counts replace these.
          seq++;
          const kind = slots.kindOf(item);
          if (countsAsRead(kind)) {
            result.recordsRead++;
            entityCounts.records++;
          }
          if (kind === FILE_PROBLEM || kind === BAD_SLOT) {
            const { file, line, rule, message } = item as SourceProblem;
            const severity = rule === EMPTY_FILE_RULE ? 'warning' : 'error';
            tally.add({ file, line, entity: entity.name, rule, severity, message }, seq);
            continue;
          }
          if (kind === SKIP) {
            entityCounts.skipped++;
            if (isParent) index.blocked.block(slots.record!, `skipped:${slots.record!.skip}`);
            // A slot the worker skipped carries no record: its notes counted the old messages among them.
            if (slots.record?.skip === BEYOND_RETENTION) {
              result.beyondRetention++;
              noteOld(inputAt, slots.record.file, slots.record.line);
            }
            continue;
          }
          let record: MappedRecord;
          let problems: readonly Problem[];
          if (item.kind === 'checked') {
            record = recordOfChecked(item, input.display, entity.name);
            problems = withCross(item.before ?? NO_PROBLEMS, index.check(record));
          } else {
            record = slots.record!;
            problems = checkRecord(record, index, options.nowSec);
            if (entity.name === 'messages') countAttachmentHosts(record.payload, hostCounts);
          }
          if (record.duplicateSuspect) lastSuspectSeq = seq;
          // A user or group that will not get in holds its members and messages back (one line for them, below).
          if (isParent && hasError(problems)) index.blocked.block(record, problems.find(isError)!.rule, problems);
          else if (record.blockedBy !== undefined && !hasError(problems)) record.blockedBy.held[heldKey(entity.name)]++;
          // An exact copy of an earlier record (ExportIndex marked it) is skipped, as import skips it.
          if (record.skip !== undefined && !hasError(problems)) entityCounts.skipped++;
          for (let i = 0; i < problems.length; i++) {
            const p = problems[i];
            if (warnedUnknown !== undefined && p.rule === 'field.unknown') {
              if (warnedUnknown.has(p.field!)) continue;
              warnedUnknown.add(p.field!);
            }
            tally.add(
              { file: record.file, line: record.line, entity: entity.name, id: record.id || undefined, ...p },
              seq,
            );
          }
          if (index.blocked.missingCount > missingLines.size) {
            for (const parent of index.blocked.missingSince(missingLines.size)) {
              const line = heldBackProblem(parent);
              missingLines.set(parent, line);
              tally.add(line, seq);
            }
          }
        }
      }
    }
  }
  if (lastSuspectSeq >= 0 && !options.signal?.aborted) {
    // With --max-errors the duplicates may move the stop anywhere up to where the first reading ended.
    await recheck(options, index, tally, result, messagesFirstSeq, options.maxErrors > 0 ? seq : lastSuspectSeq);
  }
  if (result.beyondRetention > 0 && cutoff !== undefined) {
    old.sort((a, b) => a.input - b.input || a.line - b.line);
    const first = old.slice(0, OLD_NAMED).map(({ file, line }) => ({ file, line }));
    result.retention = { days: options.retentionDays!, cutoff: cutoffDate(cutoff), first };
  }
  for (const [parent, line] of missingLines) line.message = heldBackProblem(parent, result.stoppedEarly).message;
  if (!result.stoppedEarly) {
    result.expiringMedia = await expiringMediaOf(hostCounts, options.media);
    result.unlistedMedia = unlistedMediaOf(hostCounts, options.media, options.exportFolder);
    for (const p of index.blocked.list()) {
      if (p.reason === MISSING_PARENT || p.held.members + p.held.messages === 0) continue;
      tally.add(heldBackProblem(p), seq + 1);
    }
    for (const p of index.finish()) {
      tally.add(
        {
          file: p.file,
          line: p.line,
          entity: p.entity,
          id: p.id,
          field: p.field,
          rule: p.rule,
          severity: p.severity,
          message: p.message,
        },
        seq + 1,
      );
    }
  }
  return result;
}

const isError = (p: Problem): boolean => p.severity === 'error';
const heldKey = (entity: string) => (entity === 'members' ? 'members' : 'messages');

/** A plain NDJSON message file large enough for a worker to pay for itself. */
async function sharesWithWorker(input: RecordInput, options: ValidateOptions): Promise<boolean> {
  if (input.file === undefined || input.file.format !== 'ndjson') return false;
  return isFileAtLeast(input.file.path, options.messageWorkerMinBytes ?? WORKER_MIN_BYTES);
}

function workerTask(file: ResolvedFile, plan: EntityPlan, options: ValidateOptions): MessageCheckTask {
  const { map, deletion, ids, values } = plan.source;
  return {
    file,
    // The id maps travel to the worker by structured clone (Maps clone), once per file.
    source: { map, deletion, ids, values },
    importSoftDeleted: options.importSoftDeleted,
    sinceSec: options.sinceSec,
    nowSec: options.nowSec,
    retentionCutoffSec: retentionCutoff(options.nowSec, options.retentionDays ?? 0),
  };
}

/**
 * The second reading: adds the true duplicates among the suspects, and moves a --max-errors stop they
 * bring forward.
 */
async function recheck(
  options: ValidateOptions,
  index: ExportIndex,
  tally: ProblemTally,
  result: ValidateResult,
  firstSeq: number,
  lastSeq: number,
): Promise<void> {
  const plan = options.plans.find((p) => p.entity.name === 'messages')!;
  const dups: LocatedProblem[] = [];
  const dupSeqs: number[] = [];
  const stop = await recheckDuplicates({
    plan,
    index,
    importSoftDeleted: options.importSoftDeleted,
    sinceSec: options.sinceSec,
    retentionCutoffSec: retentionCutoff(options.nowSec, options.retentionDays ?? 0),
    signal: options.signal,
    nowSec: options.nowSec,
    firstSeq,
    lastSeq,
    errorSeqs: tally.errorSeqs,
    maxErrors: options.maxErrors,
    onDuplicate: (at, file, line, id, p) => {
      const located: LocatedProblem = { file, line, entity: 'messages', id, ...p };
      tally.countOnly(located);
      if (dups.length < KEEP_AT_MOST) {
        dups.push(located);
        dupSeqs.push(at);
      }
    },
    onSameRecord: () => result.byEntity.messages!.skipped++,
  });
  if (dups.length === 0) return;
  tally.mergeErrors(dups, dupSeqs);
  if (stop !== undefined) tally.dropAfter(stop.seq);
  tally.orderRules();
  if (stop === undefined) return;
  const counts = result.byEntity.messages!;
  result.recordsRead -= counts.records - stop.records;
  counts.records = stop.records;
  counts.skipped = stop.skipped;
  result.stoppedEarly = true;
}
