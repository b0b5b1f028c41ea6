/**
 * Reading a file on from where an earlier reading to its end stopped, instead of from its start: the
 * place is kept with a hash of the bytes before it, so that a file only appended to since is told from
 * one edited near its end. Plain NDJSON and CSV files only: a JSON array's records sit inside one
 * document, and a gzip stream cannot be entered in the middle.
 */
import { createHash } from 'node:crypto';
import { openFile } from './read-blocks.js';
import type { ResolvedFile } from './types.js';

const TAIL_BYTES = 64 * 1024;
const HEADER_BYTES = 64 * 1024;
const LF = 0x0a;
const QUOTE = 0x22;

/** Where a reading to the end stopped: the file's size then, the line after its last, the bytes before. */
export interface FileEnd {
  byte: number;
  line: number;
  /** sha256 (truncated) of the min(byte, 64 KiB) bytes that end at `byte`. */
  tail: string;
}

/** Whether the file's format lets a reading start in its middle. */
export function canReadOn(file: ResolvedFile | undefined): file is ResolvedFile {
  return file !== undefined && !file.gzip && (file.format === 'ndjson' || file.format === 'csv');
}

/** A file on disk, as the checks below need it. */
export interface DiskFile {
  path: string;
  display: string;
  /** A CSV file is read on only while its header can be read apart (`csvHeaderBytes`). */
  csv?: boolean;
}

/** The file's end as it is now; `line`, the line after its last, is kept only when it ends on a newline. */
export async function fileEndNow(file: DiskFile, line: number): Promise<FileEnd> {
  const handle = await openFile(file);
  try {
    const { size } = await handle.stat();
    const tail = await readTail(handle, size);
    // A last line without its newline may still grow: reading on from there would split it.
    const endsLine = tail.length === 0 || tail[tail.length - 1] === LF;
    return { byte: size, line: endsLine ? line : 0, tail: hash(tail) };
  } finally {
    await handle.close();
  }
}

/**
 * Whether the bytes before `end.byte` are still those the earlier reading ended on, and how far the
 * file goes now: `size === end.byte` is a file not changed since, a larger one grew. A shorter one,
 * or other bytes there, is undefined: read it whole.
 */
export async function stillEndsAt(file: DiskFile, end: FileEnd): Promise<{ size: number } | undefined> {
  const handle = await openFile(file);
  try {
    const { size } = await handle.stat();
    if (size < end.byte) return undefined;
    const tail = await readTail(handle, end.byte);
    if (hash(tail) !== end.tail) return undefined;
    if (file.csv === true && size > end.byte && (await csvHeaderOf(handle)) === undefined) return undefined;
    return { size };
  } finally {
    await handle.close();
  }
}

/**
 * A CSV file's header row as bytes, newline included, for a reading that starts in the middle of the
 * file. Only a header on one line without quotes: where a quoted name might hold a line break, the
 * file is read whole.
 */
export async function csvHeaderBytes(file: DiskFile): Promise<Buffer> {
  const handle = await openFile(file);
  try {
    const header = await csvHeaderOf(handle);
    if (header === undefined) throw new Error(`${file.display}: its header cannot be read apart`);
    return header;
  } finally {
    await handle.close();
  }
}

async function csvHeaderOf(handle: Awaited<ReturnType<typeof openFile>>): Promise<Buffer | undefined> {
  const head = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const lf = head.subarray(0, bytesRead).indexOf(LF);
  if (lf < 0 || head.subarray(0, lf).includes(QUOTE)) return undefined;
  return head.subarray(0, lf + 1);
}

async function readTail(handle: Awaited<ReturnType<typeof openFile>>, end: number): Promise<Buffer> {
  const length = Math.min(end, TAIL_BYTES);
  const tail = Buffer.alloc(length);
  const { bytesRead } = await handle.read(tail, 0, length, end - length);
  return tail.subarray(0, bytesRead);
}

const hash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 32);
