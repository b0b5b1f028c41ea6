import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CheckpointCompanion, CompanionMark } from './store.js';
import { CheckpointError } from '../errors.js';
import { fsReason, makeFolderFor, STATE_FILE_MODE } from './state-files.js';

/**
 * What sets one companion file apart: its name in messages, its error code, and what a resume does
 * with the interrupted run's lines past the mark. `drop`: take them out (the rejects file: those
 * records are read and judged again). `keep`: leave them and hand them to the caller (the id log:
 * they say what the service accepted, a fact the resume's already-exists answers cannot tell again).
 */
export interface CompanionKind {
  noun: string;
  unwritableCode: string;
  pastMark: 'drop' | 'keep';
}

/** How much of the file before a mark its hash covers. */
const BEFORE_BYTES = 256;
/** A tail past the mark larger than this is left whole rather than read into memory. */
const MAX_TAIL_BYTES = 64 * 1024 * 1024;

/** What `open` did with an interrupted run's lines past the mark. */
export interface ResumedTail {
  dropped: number;
  leftWhole?: string;
  /** With `pastMark: 'keep'`: the marked run's whole lines past the mark, as text. */
  kept?: string[];
}

/**
 * An NDJSON file beside the checkpoint (the rejects file, the id log), appended to across runs; each
 * line names the run that wrote it (`run`). Lines are buffered; the checkpoint store puts them on disk
 * before each checkpoint it writes (`persist`), with a mark of where the file stood. The import writes
 * a range's lines in the same tick as it acknowledges the range, so after a crash the lines past the
 * mark from the run that made it are exactly those of records the resume reads again: `open` takes
 * them out or hands them over (`CompanionKind.pastMark`), and keeps every other line (another
 * migration's, sharing the file). A file that changed before the mark is left whole.
 */
export class CompanionLog<E extends object> implements CheckpointCompanion {
  private buffer = '';
  private pendingBytes = 0;
  private unsynced = false;
  /** Flushes run one after another: two appends in flight at once may land in either order. */
  private flushing: Promise<void> = Promise.resolve();
  readonly run = randomBytes(6).toString('hex');
  /** Lines this run wrote, by their `code` (the rejects file's): the run log's rejects by code. */
  readonly writtenByCode: Record<string, number> = {};

  private constructor(
    private readonly kind: CompanionKind,
    readonly path: string,
    private readonly handle: FileHandle,
    /** fsync fails on /dev/null and pipes, where it means nothing anyway. */
    private readonly regular: boolean,
    private flushedBytes: number,
    /** The file's last bytes, as they will be once everything written is flushed. */
    private tail: Buffer,
    /** What `open` did with an interrupted run's lines past the mark. */
    readonly resumed: ResumedTail,
  ) {}

  /**
   * Opens (creates) the file now, so an unwritable path stops the run before anything is sent; with
   * the mark of the checkpoint being resumed, first takes out that run's lines past it.
   */
  static async open<E extends object>(
    kind: CompanionKind,
    path: string,
    resumeMark?: CompanionMark,
  ): Promise<CompanionLog<E>> {
    let handle: FileHandle | undefined;
    try {
      await makeFolderFor(path);
      const existing = await stat(path).catch(() => undefined);
      const resumed =
        existing?.isFile() && resumeMark?.path === path && resumeMark.closed !== true
          ? await takeUnacknowledged(path, existing.size, resumeMark, kind.pastMark)
          : { dropped: 0 };
      handle = await open(path, 'a', STATE_FILE_MODE);
      const opened = await handle.stat();
      if (!opened.isFile()) return new CompanionLog<E>(kind, path, handle, false, 0, Buffer.alloc(0), resumed);
      let size = opened.size;
      let tail = await readRange(path, Math.max(0, size - BEFORE_BYTES), size);
      // A line cut short (a crash mid-append, a hand edit): end it, so the next line starts its own.
      if (size > 0 && tail[tail.length - 1] !== 0x0a) {
        await handle.appendFile('\n');
        await handle.sync();
        size++;
        tail = Buffer.concat([tail, Buffer.from('\n')]).subarray(-BEFORE_BYTES);
      }
      return new CompanionLog<E>(kind, path, handle, true, size, tail, resumed);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      throw unwritable(kind, path, err);
    }
  }

  closedMark?: CompanionMark;

  /** Set: checkpoints keep this mark instead of the file's end (`holdMark`). */
  private held?: CompanionMark;

  get mark(): CompanionMark {
    if (this.held) return this.held;
    return { path: this.path, bytes: this.flushedBytes + this.pendingBytes, run: this.run, before: hashOf(this.tail) };
  }

  /**
   * Checkpoints record `mark` (the one resumed from) until `releaseMark`: with `pastMark: 'keep'`, the
   * lines past it stay unacknowledged, so a second crash finds them again.
   */
  holdMark(mark: CompanionMark): void {
    this.held = mark;
  }

  releaseMark(): void {
    this.held = undefined;
  }

  write(entry: E): void {
    const code = (entry as { code?: unknown }).code;
    if (typeof code === 'string') this.writtenByCode[code] = (this.writtenByCode[code] ?? 0) + 1;
    let line: string;
    try {
      // `run` first: a line cut short by a crash still says whose it is.
      line = JSON.stringify({ run: this.run, ...entry });
    } catch {
      // Nested past what JSON.stringify can walk: keep the place and the reason, not the record.
      line = JSON.stringify({
        run: this.run,
        ...entry,
        record: undefined,
        recordOmitted: 'nested too deeply to write as JSON',
      });
    }
    this.writeLines(`${line}\n`);
  }

  /**
   * Whole lines already made, each starting `{"run":"<run>"` (see `run`): a batch's lines in one
   * call, so a busy log costs one byte count and one tail update per batch, not per line.
   */
  writeLines(text: string): void {
    this.buffer += text;
    this.pendingBytes += Buffer.byteLength(text, 'utf8');
    // The last BEFORE_BYTES characters hold at least BEFORE_BYTES bytes.
    const last = Buffer.from(text.length > BEFORE_BYTES ? text.slice(-BEFORE_BYTES) : text, 'utf8');
    this.tail =
      last.length >= BEFORE_BYTES
        ? last.subarray(last.length - BEFORE_BYTES)
        : Buffer.concat([this.tail, last]).subarray(-BEFORE_BYTES);
  }

  flush(): Promise<void> {
    if (this.buffer === '') return this.flushing;
    const text = this.buffer;
    this.flushedBytes += this.pendingBytes;
    this.buffer = '';
    this.pendingBytes = 0;
    this.flushing = this.flushing.then(async () => {
      try {
        // appendFile writes it all; a plain write may stop short and leave the mark past the file's end.
        await this.handle.appendFile(text);
      } catch (err) {
        throw unwritable(this.kind, this.path, err);
      }
      this.unsynced = this.regular;
    });
    return this.flushing;
  }

  async persist(): Promise<void> {
    await this.flush();
    if (!this.unsynced) return;
    this.unsynced = false;
    await this.handle.sync().catch((err: unknown) => {
      throw unwritable(this.kind, this.path, err);
    });
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.regular) await this.handle.sync().catch(() => undefined);
    await this.handle.close();
    // A held mark leaves lines past it unacknowledged: those a later run must still find.
    if (this.held === undefined) this.closedMark = { ...this.mark, closed: true };
  }
}

function unwritable(kind: CompanionKind, path: string, err: unknown): CheckpointError {
  if (err instanceof CheckpointError) return err;
  return new CheckpointError(kind.unwritableCode, `cannot write the ${kind.noun} ${path}: ${fsReason(err)}`);
}

const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/**
 * Takes out the lines the marked run wrote past its mark (`drop`), or hands over every line past it
 * (`keep`); takes out a last line cut short (unreadable, whoever wrote it); keeps every other line
 * after the mark. Left whole (and said why) when the bytes before the mark are not those marked: the
 * file was edited or replaced since, and cutting at that offset could take out lines that are not
 * those. A file shorter than the mark was emptied or rotated: nothing of the run is in it to take out.
 */
async function takeUnacknowledged(
  path: string,
  size: number,
  mark: CompanionMark,
  pastMark: CompanionKind['pastMark'],
): Promise<ResumedTail> {
  if (size <= mark.bytes) return { dropped: 0 };
  const before = await readRange(path, Math.max(0, mark.bytes - BEFORE_BYTES), mark.bytes);
  if (hashOf(before) !== mark.before) {
    return { dropped: 0, leftWhole: 'it changed before the point last marked' };
  }
  if (size - mark.bytes > MAX_TAIL_BYTES) return { dropped: 0, leftWhole: 'too much was added to it since' };
  const lines = (await readRange(path, mark.bytes, size)).toString('utf8').split('\n');
  const torn = lines.pop() !== '';
  const own = `{"run":"${mark.run}"`;
  const keep = pastMark === 'keep';
  // Kept lines past the mark are all this migration's (the file is named after its checkpoint), whatever run.
  const ownLines = lines.filter((line) => line !== '' && (keep || line.startsWith(own)));
  const kept = lines.filter((line) => line !== '' && (keep || !line.startsWith(own)));
  const dropped = keep ? 0 : ownLines.length;
  const resumed: ResumedTail = keep ? { dropped, kept: ownLines } : { dropped };
  if (dropped === 0 && !torn) return resumed;
  if (kept.length === 0) await truncateDurably(path, mark.bytes);
  else await replaceTail(path, mark.bytes, `${kept.join('\n')}\n`);
  return resumed;
}

/** Runs `use` on the file opened with `flags`, and closes it whatever happens. */
async function withFile<T>(path: string, flags: string, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  const handle = await open(path, flags);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

async function truncateDurably(path: string, bytes: number): Promise<void> {
  await withFile(path, 'r+', async (handle) => {
    await handle.truncate(bytes);
    await handle.sync();
  });
}

/**
 * The file up to `bytes`, then `tail`, put in place by rename: cutting the file and appending the
 * kept lines after would lose them to a crash in between.
 */
async function replaceTail(path: string, bytes: number, tail: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const head = bytes > 0 ? createReadStream(path, { start: 0, end: bytes - 1 }) : Readable.from([]);
    // The rename gives the rejects file the temp file's mode.
    await pipeline(head, createWriteStream(tmp, { mode: STATE_FILE_MODE }));
    await withFile(tmp, 'a', async (handle) => {
      await handle.appendFile(tail);
      await handle.sync();
    });
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  if (to <= from) return Buffer.alloc(0);
  return withFile(path, 'r', async (reader) => {
    const buffer = Buffer.alloc(to - from);
    let at = 0;
    while (at < buffer.length) {
      const { bytesRead } = await reader.read(buffer, at, buffer.length - at, from + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  });
}
