/**
 * The one place that handles what happens to a file as a whole, for every reader (NDJSON, JSON, CSV,
 * validate's shared NDJSON reading, presets' pieces): blocks go to the reader in order, its items
 * come back in order (a worker thread may work a few blocks ahead), a gzip layer that fails ends the
 * file after the blocks read before it (`input.gzip`), a file with nothing in it is `input.empty-file`,
 * a file in another encoding than UTF-8 is `input.encoding` and read no further,
 * a reader that stops on a break in the file has the rest read through, so its problem can say how
 * many lines the break cost, and an abort ends the reading quietly. Readers only turn blocks into items.
 */
import type { SourceProblem } from '../entities/types.js';
import { CorruptGzipError, lastLineOf, readBlocks, type Block, type ByteSource } from './read-blocks.js';
import { emptyFileProblem, encodingProblem, gzipProblem, lineSpan } from './source-items.js';
import type { ReadEnd } from './types.js';

/** What a reader makes of a file's blocks. */
export interface BlockReader<T> {
  /** The items of one block, or a promise of them (parsed in another thread); taken in block order. */
  block(block: Block): T[] | Promise<T[]>;
  /** The items left once every block is in (a last record without its newline, a document's end). */
  end(): T[] | Promise<T[]>;
  /** Set after `end` while it has more to give: it is called again (CSV reading again after a broken row). */
  readonly more?: boolean;
  /** Whether the file held anything but whitespace; read after `end`. */
  readonly sawContent: boolean;
  /** Set once a problem ended the file: what comes after it is not read. */
  readonly stopped: boolean;
  /**
   * The problem that ended the file, asked for once the rest has been read through without parsing:
   * `lastLine` is the file's last line, so the problem can say which lines were not read.
   */
  stopProblem?(lastLine: number): T[];
  /** Called however the reading ends (a worker thread to stop). */
  close?(): void;
}

export interface FileReadOptions {
  signal?: AbortSignal;
  /** See BlockOptions: readers that can take part of a line set it. */
  cutLongLinesAt?: number;
  /** Blocks handed to the reader before the first one's items are taken: a worker thread works ahead. */
  ahead?: number;
  /** Called when the file was read to its end with no problem of its own (ReadOptions.onEnd). */
  onEnd?(end: ReadEnd): void;
}

/** The reader's items block by block, then the file's own problems. */
export async function* readFileItems<T>(
  source: ByteSource,
  reader: BlockReader<T>,
  options: FileReadOptions = {},
): AsyncGenerator<Array<T | SourceProblem>> {
  const { signal, cutLongLinesAt } = options;
  const ahead = options.ahead ?? 1;
  const pending: Array<T[] | Promise<T[]>> = [];
  let lastBlock: Block | undefined;
  let foreign: SourceProblem | undefined;
  // The reader stopped: the rest is read only to find the file's last line.
  let counting = false;
  const take = async (): Promise<T[]> => {
    const next = pending.shift()!;
    return Array.isArray(next) ? next : await next;
  };
  try {
    try {
      for await (const block of readBlocks(source, { signal, cutLongLinesAt })) {
        // Another encoding: the rest is read only to find the file's last line, for the problem.
        if (lastBlock === undefined)
          foreign = encodingProblem(source.display, block.bytes, block.badLines !== undefined);
        if (foreign) counting = true;
        lastBlock = block;
        if (counting) continue;
        pending.push(reader.block(block));
        if (pending.length < ahead) continue;
        const items = await take();
        if (signal?.aborted) return;
        if (items.length > 0) yield items;
        // Stopped by a block read ahead, maybe: the blocks before that one are still to hand over.
        if (reader.stopped) counting = true;
      }
    } catch (error) {
      if (!(error instanceof CorruptGzipError)) throw error;
      // The items of the blocks read before the gzip layer failed still count.
      while (pending.length > 0) {
        const items = await take();
        if (items.length > 0) yield items;
      }
      // The reader's break and the failure after it are both true: the first counts up to the second.
      const stop = reader.stopped ? (reader.stopProblem?.(lastLineOf(lastBlock)) ?? []) : [];
      yield [...stop, gzipProblem(source.display, error)];
      return;
    }
    if (foreign) {
      yield [{ ...foreign, message: `${foreign.message}: ${lineSpan(1, lastLineOf(lastBlock))}` }];
      return;
    }
    // A reader gives no items for blocks after the one that stopped it.
    while (pending.length > 0) {
      const items = await take();
      if (signal?.aborted) return;
      if (items.length > 0) yield items;
    }
    if (signal?.aborted) return;
    while (!reader.stopped) {
      const last = await reader.end();
      if (signal?.aborted) return;
      if (last.length > 0) yield last;
      if (reader.more !== true) break;
    }
    if (reader.stopped) {
      const problem = reader.stopProblem?.(lastLineOf(lastBlock)) ?? [];
      if (problem.length > 0) yield problem;
      return;
    }
    if (!reader.sawContent && !signal?.aborted) yield [emptyFileProblem(source.display)];
    else if (!signal?.aborted && options.onEnd !== undefined) {
      const ended = lastBlock ?? { bytes: Buffer.alloc(0), lineAfter: source.startLine ?? 1 };
      const bytes = ended.bytes;
      options.onEnd({ line: ended.lineAfter, newline: bytes.length === 0 || bytes[bytes.length - 1] === 0x0a });
    }
  } finally {
    // Blocks read ahead and left behind by an early end: their failures are no one's to see.
    for (const left of pending) if (!Array.isArray(left)) left.catch(() => undefined);
    reader.close?.();
  }
}
