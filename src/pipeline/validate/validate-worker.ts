/** The worker thread of readMessagesWithWorker: parses, maps and checks the message blocks it is sent. */
import { parentPort, workerData } from 'node:worker_threads';
import { ENTITIES } from '../../entities/index.js';
import type { SourceItem } from '../../entities/types.js';
import { ndjsonBlockItems } from '../../sources/read-ndjson.js';
import { messageRefs, toColumns, type BlockMessage, type CheckedSlot, type MessageCheckTask } from './checked-messages.js';
import { ownProblems } from '../../rules/check-record.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';

const task = workerData as MessageCheckTask;
const mapper = createMapper(mapperOptionsFor(ENTITIES.messages, task.source, task));
let ordinal = 0;

/** What run-validate does with an item read in its own thread, up to the cross-record checks. */
function check(item: SourceItem): CheckedSlot {
  if (item.kind === 'problem') return item;
  const record = mapper(item);
  if (record.skip) return { kind: 'skipped' };
  const own = ownProblems(record, task.nowSec);
  const slot: CheckedSlot = { kind: 'checked', line: record.line, id: record.id, refs: messageRefs(record.payload) };
  if (own.length > 0) slot.before = own;
  return slot;
}

parentPort!.on('message', (message: BlockMessage) => {
  const bytes = Buffer.from(message.carrier, 0, message.length);
  const parsed = ndjsonBlockItems({ bytes, firstLine: message.firstLine, badLines: message.badLines }, task.file.display, ordinal);
  ordinal = parsed.nextOrdinal;
  const columns = toColumns(parsed.items.map(check), parsed.sawContent, message.carrier);
  parentPort!.postMessage(columns, [columns.kinds.buffer as ArrayBuffer, columns.lines.buffer as ArrayBuffer, message.carrier]);
});
