/**
 * validate's NDJSON message files read by two threads: this one and a worker take turns, block by
 * block (validate-worker.ts). The worker parses, maps and checks its blocks' records alone and sends
 * back only what the cross-record checks need; this thread does its own blocks as usual, and takes
 * every block's results in file order, so the ids, references and problems come out exactly as when
 * one thread reads the file.
 *
 * Why turns and not a stage per thread: parsing is most of the work and a parsed record costs as much
 * to copy to another thread as to parse, so the parse itself must be shared. Per message what
 * crosses is its line, id, the three reference fields (plus the id of an embedded details object)
 * and the problems found: a small part of the record.
 */
import { Worker } from 'node:worker_threads';
import type { SourceConfig } from '../../config/types.js';
import { ENTITIES } from '../../entities/index.js';
import { NO_PROBLEMS, type EntityName, type JsonObject, type MappedRecord, type Problem, type SourceItem } from '../../entities/types.js';
import { CorruptGzipError, readBlocks, type Block } from '../../sources/read-blocks.js';
import { ndjsonBlockItems } from '../../sources/read-ndjson.js';
import { emptyFileProblem, gzipProblem } from '../../sources/source-items.js';
import type { ResolvedFile } from '../../sources/types.js';

/** What the worker needs to map and check messages as this thread would. */
export interface MessageCheckTask {
  file: ResolvedFile;
  source: Pick<SourceConfig, 'map' | 'deletion'>;
  importSoftDeleted: boolean;
  sinceSec?: number;
  nowSec: number;
}

/** A record the worker mapped and checked. `before`: its mapping and per-record problems, ahead of the cross-record ones. */
export interface CheckedMessage {
  kind: 'checked';
  line: number;
  id: string;
  refs: JsonObject;
  before?: Problem[];
}

/** What the worker sends for each item of a block: problems as read; records checked, or skipped. */
export type CheckedSlot = Extract<SourceItem, { kind: 'problem' }> | CheckedMessage | { kind: 'skipped' };

/**
 * A worker block's slots as columns: a block of 270 messages as ~10 arrays instead of 270 objects
 * each with a nested one, which cost more to copy between threads than the cross-record checks.
 */
export interface CheckedColumns {
  /** Per item: 0 a checked message, 1 skipped, 2 a problem (in `problems`, in order). */
  kinds: Uint8Array;
  /** Per checked message, in order. */
  lines: Float64Array;
  ids: string[];
  senders: unknown[];
  receiverTypes: unknown[];
  receivers: unknown[];
  /** Checked messages (by their place among checked ones) with details objects or problems of their own. */
  extras: Array<{ at: number; details?: JsonObject; before?: Problem[] }>;
  problems: Array<Extract<SourceItem, { kind: 'problem' }>>;
  sawContent: boolean;
  /** The block's memory, handed back for the next block. */
  carrier: ArrayBuffer;
}

/** A block on its way to the worker, in memory that goes back and forth (see `readMessagesWithWorker`). */
export interface BlockMessage {
  carrier: ArrayBuffer;
  length: number;
  firstLine: number;
  badLines?: number[];
}

const CHECKED = 0;
const SKIPPED = 1;
const PROBLEM = 2;

/** The worker's side: a block's slots into columns. */
export function toColumns(slots: readonly CheckedSlot[], sawContent: boolean, carrier: ArrayBuffer): CheckedColumns {
  const kinds = new Uint8Array(slots.length);
  const checked = slots.filter((s): s is CheckedMessage => s.kind === 'checked');
  const columns: CheckedColumns = {
    kinds,
    lines: new Float64Array(checked.length),
    ids: new Array<string>(checked.length),
    senders: new Array<unknown>(checked.length),
    receiverTypes: new Array<unknown>(checked.length),
    receivers: new Array<unknown>(checked.length),
    extras: [],
    problems: [],
    sawContent,
    carrier,
  };
  let k = 0;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    if (slot.kind === 'problem') {
      kinds[i] = PROBLEM;
      columns.problems.push(slot);
    } else if (slot.kind === 'skipped') {
      kinds[i] = SKIPPED;
    } else {
      kinds[i] = CHECKED;
      const { sender, receiverType, receiver, ...details } = slot.refs;
      columns.lines[k] = slot.line;
      columns.ids[k] = slot.id;
      columns.senders[k] = sender;
      columns.receiverTypes[k] = receiverType;
      columns.receivers[k] = receiver;
      const hasDetails = Object.keys(details).length > 0;
      if (hasDetails || slot.before) columns.extras.push({ at: k, details: hasDetails ? details : undefined, before: slot.before });
      k++;
    }
  }
  return columns;
}

/** This thread's side: the columns back into slots. */
export function fromColumns(c: CheckedColumns): CheckedSlot[] {
  const slots = new Array<CheckedSlot>(c.kinds.length);
  let k = 0;
  let p = 0;
  let e = 0;
  for (let i = 0; i < c.kinds.length; i++) {
    const kind = c.kinds[i];
    if (kind === PROBLEM) slots[i] = c.problems[p++];
    else if (kind === SKIPPED) slots[i] = { kind: 'skipped' };
    else {
      const refs: JsonObject = { sender: c.senders[k], receiverType: c.receiverTypes[k], receiver: c.receivers[k] };
      const slot: CheckedMessage = { kind: 'checked', line: c.lines[k], id: c.ids[k], refs };
      const extra = c.extras[e];
      if (extra !== undefined && extra.at === k) {
        if (extra.details) Object.assign(refs, extra.details);
        if (extra.before) slot.before = extra.before;
        e++;
      }
      slots[i] = slot;
      k++;
    }
  }
  return slots;
}

/** The fields ExportIndex.check reads of a message; of a details object only the id it compares. */
const MESSAGE_REFERENCES = ENTITIES.messages.references;
const REF_FIELDS = [...new Set(MESSAGE_REFERENCES.flatMap((r) => (r.when ? [r.field, r.when.field] : [r.field])))];
const DETAILS = MESSAGE_REFERENCES.map((r) => [r.details, ENTITIES[r.target].idField] as const);

export function messageRefs(payload: JsonObject): JsonObject {
  const refs: JsonObject = {};
  for (const field of REF_FIELDS) refs[field] = payload[field];
  for (const [field, idField] of DETAILS) {
    const details = payload[field];
    if (typeof details === 'object' && details !== null && !Array.isArray(details)) refs[field] = { [idField]: (details as JsonObject)[idField] };
  }
  return refs;
}

/** The record ExportIndex.check takes, rebuilt from what the worker sent. */
export function recordOfChecked(slot: CheckedMessage, display: string, entity: EntityName): MappedRecord {
  return { entity, payload: slot.refs, id: slot.id, source: slot.refs, file: display, line: slot.line, ordinal: 0, problems: NO_PROBLEMS };
}

/** The next block, the end, or the gzip layer's failure (which ends the file after the blocks before it). */
type Next = { block: Block } | { done: true } | { gzip: CorruptGzipError };

/** A block is 64 KB unless a line is longer; a carrier that grew past this for a long line is not kept. */
const CARRIER_BYTES = 64 * 1024;
const MAX_KEPT_CARRIER = 1024 * 1024;

/** Blocks read ahead of the one being taken: the worker always has its next block queued. */
const LOOKAHEAD = 4;

/**
 * The file's items block by block in file order: this thread's blocks as read (to map and check
 * here), the worker's (every other block) as checked slots. Ordinals count this thread's slots only
 * (validate does not use them). Ending the iteration early stops the worker.
 */
export async function* readMessagesWithWorker(task: MessageCheckTask, signal?: AbortSignal): AsyncGenerator<Array<SourceItem | CheckedSlot>> {
  const worker = new Worker(new URL('./validate-worker.js', import.meta.url), {
    workerData: task,
    // Its own heap, counted in the same 150 MB: a small young generation, as for the CSV worker.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  const waiting: Array<{ resolve: (answer: CheckedColumns) => void; reject: (error: Error) => void }> = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  // Blocks travel in a few buffers that the worker hands back with its answers: a buffer allocated
  // here and freed there (or the reverse) per block made the allocator's footprint drift from run to
  // run (peak RSS at 3M messages varied by ~10 MB).
  const carriers: ArrayBuffer[] = [];
  worker.on('message', (answer: CheckedColumns) => {
    if (answer.carrier.byteLength <= MAX_KEPT_CARRIER) carriers.push(answer.carrier);
    waiting.shift()?.resolve(answer);
  });
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the message checking thread stopped')));
  const check = (block: Block): Promise<CheckedColumns> => {
    const answer = failure
      ? Promise.reject(failure)
      : new Promise<CheckedColumns>((resolve, reject) => {
          waiting.push({ resolve, reject });
          // A copy the worker owns: a read block may share its memory with others.
          const length = block.bytes.length;
          let carrier = carriers.pop();
          if (carrier === undefined || carrier.byteLength < length) carrier = new ArrayBuffer(Math.max(length, CARRIER_BYTES));
          new Uint8Array(carrier).set(block.bytes);
          const message: BlockMessage = { carrier, length, firstLine: block.firstLine, badLines: block.badLines };
          worker.postMessage(message, [carrier]);
        });
    answer.catch(() => undefined); // seen when awaited in turn
    return answer;
  };

  const blocks = readBlocks(task.file, { signal })[Symbol.asyncIterator]();
  const next = async (): Promise<Next> => {
    try {
      const r = await blocks.next();
      return r.done ? { done: true } : { block: r.value };
    } catch (error) {
      if (error instanceof CorruptGzipError) return { gzip: error };
      throw error;
    }
  };
  const display = task.file.display;
  const ahead: Array<Block | Promise<CheckedColumns> | CorruptGzipError> = [];
  let ended = false;
  let turn = 0;
  let ordinal = 0;
  let sawContent = false;
  try {
    for (;;) {
      while (!ended && ahead.length < LOOKAHEAD) {
        const n = await next();
        if ('block' in n) ahead.push(turn++ % 2 === 0 ? n.block : check(n.block));
        else {
          ended = true;
          if ('gzip' in n) ahead.push(n.gzip);
        }
      }
      const head = ahead.shift();
      if (head === undefined) break;
      if (head instanceof CorruptGzipError) {
        yield [gzipProblem(display, head)];
        break;
      }
      let items: Array<SourceItem | CheckedSlot>;
      if (head instanceof Promise) {
        const columns = await head;
        sawContent ||= columns.sawContent;
        items = fromColumns(columns);
      } else {
        const own = ndjsonBlockItems(head, display, ordinal);
        ordinal = own.nextOrdinal;
        sawContent ||= own.sawContent;
        items = own.items;
      }
      if (signal?.aborted) return;
      if (items.length > 0) yield items;
    }
    if (!sawContent && !signal?.aborted) yield [emptyFileProblem(display)];
  } finally {
    worker.removeAllListeners();
    void worker.terminate();
    await blocks.return?.(undefined);
  }
}
