/**
 * validate's NDJSON message files read by two threads: this one and a worker take turns, block by
 * block (validate-worker.ts, run through the one worker plumbing, sources/worker-thread.ts). The worker parses, maps and checks its blocks' records alone and sends
 * back only what the cross-record checks need; this thread does its own blocks as usual, and takes
 * every block's results in file order, so the ids, references and problems come out exactly as when
 * one thread reads the file.
 *
 * Why turns and not a stage per thread: parsing is most of the work and a parsed record costs as much
 * to copy to another thread as to parse, so the parse itself must be shared. Per message what
 * crosses is its line, id, the three reference fields (plus the id of an embedded details object)
 * and the problems found: a small part of the record.
 */
import type { SourceItem } from '../../entities/types.js';
import { CorruptGzipError, readBlocks, type Block } from '../../sources/read-blocks.js';
import { ndjsonBlockItems } from '../../sources/read-ndjson.js';
import { emptyFileProblem, gzipProblem } from '../../sources/source-items.js';
import { WorkerThread } from '../../sources/worker-thread.js';
import { fromColumns } from './checked-columns.js';
import type { BlockMessage, CheckedColumns, CheckedSlot, MessageCheckTask } from './checked-columns.js';

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
  const job = new URL('./validate-worker.js', import.meta.url);
  const thread = new WorkerThread<BlockMessage, CheckedColumns>(job, { name: 'message checking', data: task });
  // Blocks travel in a few buffers that the worker hands back with its answers: a buffer allocated
  // here and freed there (or the reverse) per block made the allocator's footprint drift from run to
  // run (peak RSS at 3M messages varied by ~10 MB).
  const carriers: ArrayBuffer[] = [];
  const check = (block: Block): Promise<CheckedColumns> => {
    // A copy the worker owns: a read block may share its memory with others.
    const length = block.bytes.length;
    let carrier = carriers.pop();
    if (carrier === undefined || carrier.byteLength < length) carrier = new ArrayBuffer(Math.max(length, CARRIER_BYTES));
    new Uint8Array(carrier).set(block.bytes);
    const message: BlockMessage = { carrier, length, firstLine: block.firstLine, badLines: block.badLines };
    const answer = thread.send(message, [carrier]).then((columns) => {
      if (columns.carrier.byteLength <= MAX_KEPT_CARRIER) carriers.push(columns.carrier);
      return columns;
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
    thread.terminate();
    await blocks.return?.(undefined);
  }
}
