import type { CheckpointStore } from '../../checkpoint/store.js';
import type { EntityName, JsonObject, SourceRecord } from '../../entities/types.js';
import type { ExportIndex } from '../../rules/index.js';
import { ownProblems, withCross, hasError } from '../../rules/check-record.js';
import type { EntityCounts } from '../events.js';
import { type ItemSlots, SKIP } from '../item-slots.js';
import type { Batcher } from './batcher.js';
import { slotHash } from './open-rejects.js';
import { rejectOfRecord, type PhaseTally } from './phase-tally.js';
import { heldForMedia, mediaReject } from './media-pass.js';

/** A rejects file's line as the user left it: the record to send for a slot the checkpoint keeps open. */
export interface ReplayItem {
  entity: EntityName;
  file: string;
  line: number;
  ordinal: number;
  record: JsonObject;
}

/** What `replay` adds to an import: per entity, the records to send after the export's own. */
export interface ReplaySource {
  itemsFor(entity: EntityName): readonly ReplayItem[];
  /** Whether the rejects file holds (or the user deleted) the line of this slot: replay decides it. */
  covers(entity: EntityName, file: string, ordinal: number): boolean;
  /** Slots open when the replay began whose lines the user deleted from the rejects file. */
  deleted: readonly { entity: EntityName; file: string; ordinal: number; code: string; hash: string }[];
  /** Called once per replayed record actually offered for sending (the summary's "sent"). */
  sent?(entity: EntityName): void;
}

export interface ReplayPass {
  entity: EntityName;
  items: readonly ReplayItem[];
  checkpoint: CheckpointStore;
  batcher: Batcher;
  tally: PhaseTally;
  index: ExportIndex;
  slots: ItemSlots;
  counts: EntityCounts;
  nowSec: number;
  replay: ReplaySource;
}

/**
 * Sends the edited records of slots still open once the export's reading is answered (a slot the
 * export's own line brought in meanwhile is closed, and not sent twice). Each stands in for its slot:
 * its answer closes the slot, or keeps it open under the new reason.
 */
export async function offerReplayItems(pass: ReplayPass): Promise<void> {
  const { batcher, tally, counts, checkpoint } = pass;
  for (const slot of pass.replay.deleted) {
    if (slot.entity !== pass.entity) continue;
    const progress = checkpoint.fileProgress(slot.entity, slot.file);
    const open = progress.openAt(slot.ordinal);
    // Reopened by this run's reading of the export (its line changed): it has a new line now.
    if (open?.code !== slot.code || open.hash !== slot.hash) continue;
    progress.resolve(slot.ordinal);
    const totals = checkpoint.totals(slot.entity);
    totals.dropped = (totals.dropped ?? 0) + 1;
    const byCode = (totals.droppedBy ??= {});
    byCode[slot.code] = (byCode[slot.code] ?? 0) + 1;
  }
  for (const item of pass.items) {
    if (batcher.stopped) return;
    const progress = checkpoint.fileProgress(pass.entity, item.file);
    if (progress.openAt(item.ordinal) === undefined) continue;
    const source: SourceRecord = {
      kind: 'record',
      value: item.record,
      file: item.file,
      line: item.line,
      ordinal: item.ordinal,
    };
    counts.read++;
    const kind = pass.slots.kindOf(source);
    const record = pass.slots.record!;
    if (kind === SKIP) {
      progress.resolve(item.ordinal);
      tally.skip(record.skip!);
      continue;
    }
    const problems = withCross(ownProblems(record, pass.nowSec), pass.index.checkReplayed(record));
    if (hasError(problems)) {
      const first = problems.find((p) => p.severity === 'error')!;
      const slot = { progress, ordinal: item.ordinal, hash: slotHash(source) };
      batcher.hold({ ...rejectOfRecord(record, first.rule, first.message), field: first.field }, slot);
      continue;
    }
    if (record.blockedBy !== undefined) {
      // Its user or group is not in: sent with the export's reading once it is; the slot stays open.
      tally.stillRejected();
      continue;
    }
    // A file still not carried holds the line as it holds the export's: never sent with its old URL.
    if (record.media && heldForMedia(checkpoint, record)) {
      batcher.hold(mediaReject(record), { progress, ordinal: item.ordinal, hash: slotHash(source) });
      continue;
    }
    pass.replay.sent?.(pass.entity);
    // Marked, so its answer counts it as replayed and the id log says where it came from (verify).
    await batcher.offerSlot({ ...record, replayed: true }, progress, item.ordinal);
  }
}
