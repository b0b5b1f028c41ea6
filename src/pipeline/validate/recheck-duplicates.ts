import type { Problem } from '../../entities/types.js';
import { SAME_RECORD, type ExportIndex } from '../../rules/index.js';
import { hasError, ownProblems } from '../../rules/check-record.js';
import { countsAsRead, ItemSlots, RECORD, SKIP } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { WORKER_MIN_BYTES } from '../../sources/worker-threshold.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';

export interface RecheckOptions {
  /** The messages' plan, read again with the same readers and mapping as the first reading. */
  plan: EntityPlan;
  index: ExportIndex;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** The first reading's retention cutoff: its skips are counted the same way. */
  retentionCutoffSec?: number;
  signal?: AbortSignal;
  /** Seq (place in the first reading's order) of the plan's first item. */
  firstSeq: number;
  /** Seq of the last item to read: the last suspect's, or where --max-errors stopped the first reading. */
  lastSeq: number;
  /** Seqs of the errors the first reading found, ascending; with `maxErrors`, where the stop moves to. */
  errorSeqs: readonly number[];
  /** The run's --max-errors (0: none). */
  maxErrors: number;
  /** The first reading's clock: an exact copy with errors of its own is rejected, not skipped, as import does. */
  nowSec: number;
  /** Called for each duplicate, in reading order, with the seq and place of the record it is about. */
  onDuplicate(seq: number, file: string, line: number, id: string, problem: Problem): void;
  /** Called for each exact copy of an earlier record under its muid: skipped `duplicate`. */
  onSameRecord(): void;
}

/** Where the duplicates moved the --max-errors stop: its item's seq, and the messages' counts through it. */
export interface RecheckStop {
  seq: number;
  records: number;
  skipped: number;
}

/**
 * The second reading of the messages, done by validate only when the Bloom filter met suspect muids
 * (ExportIndex's bloom mode): reads and maps them as the first reading did, counting seqs the same
 * way, and lets the index confirm each suspect against the first place of its muid. Only ids are
 * looked at; every other rule ran in the first reading. Returns where --max-errors now stops, when
 * the duplicates found make it stop earlier than (or, without a stop, within) the first reading.
 */
export async function recheckDuplicates(o: RecheckOptions): Promise<RecheckStop | undefined> {
  const entity = o.plan.entity;
  let seq = o.firstSeq - 1;
  let records = 0;
  let skipped = 0;
  let duplicates = 0;
  let errorsBefore = 0;
  for (const input of o.plan.inputs) {
    const slots = new ItemSlots(createMapper(mapperOptionsFor(entity, o.plan.source, o)));
    for await (const items of readInputBatches(input, {
      signal: o.signal,
      entity: entity.name,
      csvWorkerMinBytes: WORKER_MIN_BYTES,
    })) {
      for (const item of items) {
        // Seqs, records and skips counted as validate-pass.ts counts them: the stop's counts replace its.
        if (++seq > o.lastSeq || o.signal?.aborted) return undefined;
        const kind = slots.kindOf(item);
        if (countsAsRead(kind)) records++;
        if (kind === SKIP) skipped++;
        if (kind === RECORD) {
          const record = slots.record!;
          const found = o.index.recheckMessageId(record);
          if (found === SAME_RECORD) {
            if (!hasError(ownProblems(record, o.nowSec))) {
              skipped++;
              o.onSameRecord();
            }
          } else if (found !== undefined) {
            duplicates++;
            o.onDuplicate(seq, record.file, record.line, record.id, found);
          }
        }
        if (o.maxErrors === 0 || duplicates === 0) continue;
        while (errorsBefore < o.errorSeqs.length && o.errorSeqs[errorsBefore] <= seq) errorsBefore++;
        if (errorsBefore + duplicates >= o.maxErrors) return { seq, records, skipped };
      }
    }
  }
  return undefined;
}
