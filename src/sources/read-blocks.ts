/**
 * The byte layer under every reader, plain files and presets' exports alike: takes a stream of bytes
 * (a file, gunzipped when `.gz`, or a zip entry), drops a UTF-8 BOM, and hands out blocks that end
 * on a line boundary, each with its first line number and the lines holding invalid UTF-8. Readers
 * decode a block in one call: a `\n` byte never sits inside a multi-byte character, so a block that
 * ends after one always holds whole characters.
 */
import { isUtf8 } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors.js';
import type { ResolvedFile } from './types.js';

const READ_SIZE = 64 * 1024;
const LF = 0x0a;

/** Where a reader's bytes come from: a source file, or any stream (a zip entry of a preset's export). */
export interface ByteSource {
  /** How problems and errors name it (`users.csv`, `export.zip!users.json`). */
  display: string;
  /** The bytes, decompressed. Errors while reading are InputErrors naming `display`, or CorruptGzipError. */
  open(): Promise<Readable>;
  /**
   * Reading on from the middle of a file: `open` gives the bytes from there, which start on this line.
   * `prefix`, when set, is the file's first bytes (a CSV header), handed out before them as lines 1 on.
   */
  startLine?: number;
  prefix?: Buffer;
}

export interface Block {
  bytes: Buffer;
  /** 1-based number of the line the block starts on (a block may start mid-line after a cut). */
  firstLine: number;
  /** The line the byte after the block is on: `firstLine` plus the block's newlines. */
  lineAfter: number;
  /** Lines of this block that are not valid UTF-8, ascending; undefined in the usual case. */
  badLines?: number[];
}

export interface BlockOptions {
  signal?: AbortSignal;
  /**
   * Without a newline, bytes pile up until one comes. Readers that can take part of a line (JSON,
   * CSV) set this so a minified one-line file still streams; NDJSON needs whole lines.
   */
  cutLongLinesAt?: number;
}

/** The gzip layer failed: the rest of the file cannot be read. */
export class CorruptGzipError extends Error {
  constructor(
    readonly line: number,
    cause: Error,
  ) {
    super(`cannot decompress: ${cause.message}`, { cause });
  }
}

/**
 * A source file's bytes: gunzipped when it is `.gz`. From `from.byte` on when set (a plain file read on
 * from where an earlier reading ended), after `prefix` (its header).
 */
export function fileBytes(file: ResolvedFile, from?: { byte: number; line: number }, prefix?: Buffer): ByteSource {
  return {
    display: file.display,
    startLine: from?.line,
    prefix,
    async open() {
      const handle = await openFile(file);
      try {
        // A 0-byte .gz is an empty export, not a corrupt one: zlib would call it a truncated stream.
        const compressed = file.gzip && (await handle.stat()).size > 0;
        const raw = handle.createReadStream({ highWaterMark: READ_SIZE, start: from?.byte });
        return compressed ? pipeline(raw, createGunzip({ chunkSize: READ_SIZE }), () => {}) : raw;
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
  };
}

export async function* readBlocks(source: ByteSource, options: BlockOptions = {}): AsyncGenerator<Block> {
  const { signal, cutLongLinesAt } = options;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  let line = 1;
  let first = true;

  const makeBlock = (bytes: Buffer): Block => {
    if (first) {
      // On the first block, not the first chunk: a stream may hand out fewer than 3 bytes at first.
      first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    const firstLine = line;
    line += countNewlines(bytes);
    const lineAfter = line;
    if (isUtf8(bytes)) return { bytes, firstLine, lineAfter };
    return { bytes, firstLine, lineAfter, badLines: findBadLines(bytes, firstLine) };
  };

  if (source.prefix !== undefined) {
    const head = makeBlock(source.prefix);
    if (head.bytes.length > 0) yield head;
  }
  if (source.startLine !== undefined) {
    // From the middle of the file: no byte order mark there, and its lines go on from where it is.
    first = false;
    line = source.startLine;
  }
  try {
    for await (const chunk of readChunks(source, signal)) {
      const lastNewline = chunk.lastIndexOf(LF);
      if (lastNewline < 0) {
        pending.push(chunk);
        pendingLength += chunk.length;
        if (cutLongLinesAt !== undefined && pendingLength >= cutLongLinesAt) {
          const data = Buffer.concat(pending, pendingLength);
          const cut = characterBoundary(data);
          pending = cut < data.length ? [data.subarray(cut)] : [];
          pendingLength = data.length - cut;
          yield makeBlock(data.subarray(0, cut));
        }
        continue;
      }
      const head = chunk.subarray(0, lastNewline + 1);
      const bytes = pendingLength === 0 ? head : Buffer.concat([...pending, head], pendingLength + head.length);
      const rest = chunk.subarray(lastNewline + 1);
      pending = rest.length > 0 ? [rest] : [];
      pendingLength = rest.length;
      yield makeBlock(bytes);
    }
  } catch (error) {
    if (isZlibError(error)) throw new CorruptGzipError(line, error);
    throw error;
  }
  if (pendingLength > 0) yield makeBlock(Buffer.concat(pending, pendingLength));
}

async function* readChunks(source: ByteSource, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  if (signal?.aborted) return;
  const stream = await source.open();
  const onAbort = () => stream.destroy(signal?.reason as Error);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      if (signal?.aborted) return;
      yield chunk as Buffer;
    }
  } catch (error) {
    if (signal?.aborted) return;
    if (isZlibError(error)) throw error;
    throw new InputError('INPUT_READ', `cannot read ${source.display}: ${(error as Error).message}`, {
      location: { file: source.display },
      cause: error,
    });
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.destroy();
  }
}

/** Opens a source file to read; a missing or unreadable one is an InputError naming it. */
export async function openFile(file: Pick<ResolvedFile, 'path' | 'display'>): Promise<FileHandle> {
  try {
    return await open(file.path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const [errorCode, reason] =
      code === 'ENOENT'
        ? ['INPUT_NOT_FOUND', 'file not found']
        : code === 'EACCES' || code === 'EPERM'
          ? ['INPUT_UNREADABLE', 'permission denied']
          : ['INPUT_UNREADABLE', (error as Error).message];
    throw new InputError(errorCode, `cannot open ${file.display}: ${reason}`, {
      location: { file: file.display },
      cause: error,
    });
  }
}

function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/** The number of the file's last line, given its last block (a newline at the very end starts no line). */
export function lastLineOf(block: Block | undefined): number {
  if (block === undefined) return 1;
  return block.bytes.length > 0 && block.bytes[block.bytes.length - 1] === LF ? block.lineAfter - 1 : block.lineAfter;
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) count++;
  return count;
}

/** Only called for blocks that failed validation, so a line-by-line pass is affordable. */
function findBadLines(bytes: Buffer, firstLine: number): number[] {
  const bad: number[] = [];
  let start = 0;
  let line = firstLine;
  while (start < bytes.length) {
    const newline = bytes.indexOf(LF, start);
    const end = newline < 0 ? bytes.length : newline;
    if (!isUtf8(bytes.subarray(start, end))) bad.push(line);
    start = end + 1;
    line++;
  }
  return bad;
}

/** Where to cut so no multi-byte character is split: before the last one if it is incomplete. */
function characterBoundary(data: Buffer): number {
  let lead = data.length - 1;
  while (lead > 0 && lead > data.length - 4 && (data[lead] & 0xc0) === 0x80) lead--;
  const byte = data[lead];
  const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + size <= data.length ? data.length : lead;
}
