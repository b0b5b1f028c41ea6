/** The job of readMessagesWithWorker's thread: parses, maps and checks the message blocks it is sent. */
import { ENTITIES } from '../../entities/index.js';
import { BEYOND_RETENTION, type SourceItem } from '../../entities/types.js';
import { ndjsonBlockItems } from '../../sources/read-ndjson.js';
import type { WorkerJob } from '../../sources/worker-job.js';
import { ownProblems } from '../../rules/check-record.js';
import { BAD_SLOT, FILE_PROBLEM, ItemSlots, SKIP } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { OLD_NAMED } from '../retention.js';
import { countAttachmentHosts } from './expiring-media.js';
import { messageRefs, toColumns } from './checked-columns.js';
import type { BlockMessage, CheckedColumns, CheckedSlot, MessageCheckTask } from './checked-columns.js';

export function startJob(data: unknown): WorkerJob<BlockMessage, CheckedColumns> {
  const task = data as MessageCheckTask;
  const slots = new ItemSlots(createMapper(mapperOptionsFor(ENTITIES.messages, task.source, task)));
  let ordinal = 0;
  let beyondRetention = 0;
  let oldLines: number[] = [];
  let attachmentHosts: Record<string, number> = {};

  /** What validate-pass.ts does with an item read in its own thread, up to the cross-record checks. */
  const check = (item: SourceItem): CheckedSlot => {
    const kind = slots.kindOf(item);
    if (kind === FILE_PROBLEM || kind === BAD_SLOT) return item as Extract<SourceItem, { kind: 'problem' }>;
    if (kind === SKIP) {
      if (slots.record?.skip === BEYOND_RETENTION && beyondRetention++ < OLD_NAMED) oldLines.push(slots.record.line);
      return { kind: 'skipped' };
    }
    const record = slots.record!;
    countAttachmentHosts(record.payload, attachmentHosts);
    const own = ownProblems(record, task.nowSec);
    const slot: CheckedSlot = { kind: 'checked', line: record.line, id: record.id, refs: messageRefs(record.payload) };
    if (own.length > 0) slot.before = own;
    return slot;
  };

  return {
    take(message) {
      const bytes = Buffer.from(message.carrier, 0, message.length);
      const block = { bytes, firstLine: message.firstLine, badLines: message.badLines };
      const parsed = ndjsonBlockItems(block, task.file.display, ordinal);
      ordinal = parsed.nextOrdinal;
      beyondRetention = 0;
      oldLines = [];
      attachmentHosts = {};
      const columns = toColumns(parsed.items.map(check), parsed.sawContent, message.carrier);
      columns.beyondRetention = beyondRetention;
      if (oldLines.length > 0) columns.beyondRetentionLines = oldLines;
      if (Object.keys(attachmentHosts).length > 0) columns.attachmentHosts = attachmentHosts;
      return columns;
    },
    transferOf: (c) => [c.kinds.buffer as ArrayBuffer, c.lines.buffer as ArrayBuffer, c.carrier],
  };
}
