/**
 * validate's NDJSON message files read by two threads: this one and a worker take turns, block by
 * block (validate-worker.ts, run through the one worker plumbing, sources/worker-thread.ts). The
 * worker parses, maps and checks its blocks' records alone and sends back only what the
 * cross-record checks need; this thread does its own blocks as usual, and takes every block's
 * results in file order, so the ids, references and problems come out exactly as when one thread
 * reads the file. The file as a whole (gzip, empty) is the shared read layer's (read-file.ts).
 *
 * Why turns and not a stage per thread: parsing is most of the work and a parsed record costs as much
 * to copy to another thread as to parse, so the parse itself must be shared. Per message what
 * crosses is its line, id, the three reference fields (plus the id of an embedded details object)
 * and the problems found: a small part of the record.
 */
import type { SourceItem } from '../../entities/types.js';
import { fileBytes, type Block } from '../../sources/read-blocks.js';
import { readFileItems, type BlockReader } from '../../sources/read-file.js';
import { ndjsonBlockItems } from '../../sources/read-ndjson.js';
import { WorkerThread } from '../../sources/worker-thread.js';
import { fromColumns } from './checked-columns.js';
import type { BlockMessage, CheckedColumns, CheckedSlot, MessageCheckTask } from './checked-columns.js';

/** A block is 64 KB unless a line is longer; a carrier that grew past this for a long line is not kept. */
const CARRIER_BYTES = 64 * 1024;
const MAX_KEPT_CARRIER = 1024 * 1024;

export type BlockNotes = Pick<CheckedColumns, 'beyondRetention' | 'beyondRetentionLines' | 'attachmentHosts'>;

/** Blocks read ahead of the one being taken: the worker always has its next block queued. */
const LOOKAHEAD = 4;

/**
 * The file's items block by block in file order: this thread's blocks as read (to map and check
 * here), the worker's (every other block) as checked slots. Ordinals count this thread's slots only
 * (validate does not use them). Ending the iteration early stops the worker.
 */
export function readMessagesWithWorker(
  task: MessageCheckTask,
  signal?: AbortSignal,
  /** Told what the worker noted of each block: messages beyond retention, attachments on expiring hosts. */
  onNotes?: (notes: BlockNotes) => void,
): AsyncGenerator<Array<SourceItem | CheckedSlot>> {
  const reader = new SharedReader(task, onNotes);
  return readFileItems(fileBytes(task.file), reader, { signal, ahead: LOOKAHEAD });
}

class SharedReader implements BlockReader<SourceItem | CheckedSlot> {
  sawContent = false;
  readonly stopped = false;
  private readonly thread: WorkerThread<BlockMessage, CheckedColumns>;
  private readonly display: string;
  private turn = 0;
  private ordinal = 0;
  // Blocks travel in a few buffers that the worker hands back with its answers: a buffer allocated
  // here and freed there (or the reverse) per block made the allocator's footprint drift from run to
  // run (peak RSS at 3M messages varied by ~10 MB).
  private readonly carriers: ArrayBuffer[] = [];

  constructor(
    task: MessageCheckTask,
    private readonly onNotes?: (notes: BlockNotes) => void,
  ) {
    this.display = task.file.display;
    const job = new URL('./validate-worker.js', import.meta.url);
    this.thread = new WorkerThread(job, { name: 'message checking', data: task });
  }

  block(block: Block): Array<SourceItem | CheckedSlot> | Promise<CheckedSlot[]> {
    if (this.turn++ % 2 === 0) {
      const own = ndjsonBlockItems(block, this.display, this.ordinal);
      this.ordinal = own.nextOrdinal;
      this.sawContent ||= own.sawContent;
      return own.items;
    }
    // A copy the worker owns: a read block may share its memory with others.
    const length = block.bytes.length;
    let carrier = this.carriers.pop();
    if (carrier === undefined || carrier.byteLength < length) {
      carrier = new ArrayBuffer(Math.max(length, CARRIER_BYTES));
    }
    new Uint8Array(carrier).set(block.bytes);
    const message: BlockMessage = { carrier, length, firstLine: block.firstLine, badLines: block.badLines };
    return this.thread.send(message, [carrier]).then((columns) => {
      if (columns.carrier.byteLength <= MAX_KEPT_CARRIER) this.carriers.push(columns.carrier);
      this.sawContent ||= columns.sawContent;
      if (columns.beyondRetention || columns.attachmentHosts) this.onNotes?.(columns);
      return fromColumns(columns);
    });
  }

  end(): SourceItem[] {
    return [];
  }

  close(): void {
    this.thread.terminate();
  }
}
