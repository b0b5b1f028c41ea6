import { createHash, randomBytes } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import type { EntityName, JsonObject } from '../entities/types.js';
import type { CheckpointCompanion, CompanionMark } from '../checkpoint/store.js';
import { CheckpointError } from '../errors.js';

/** One line of the rejects file: enough to find the record, fix it and replay it. */
export interface RejectEntry {
  entity: EntityName;
  file: string;
  line: number;
  id?: string;
  /** The service's error code, or the validation rule / input rule. */
  code: string;
  field?: string;
  message: string;
  /** The record as the source held it (absent when the input could not be parsed into one). */
  record?: JsonObject;
}

/** How much of the file before a mark its hash covers. */
const BEFORE_BYTES = 256;
/** A tail past the mark larger than this is left whole rather than read into memory. */
const MAX_TAIL_BYTES = 64 * 1024 * 1024;

/**
 * The rejects file (NDJSON), appended to across runs; each line names the run that wrote it (`run`).
 * Lines are buffered; the checkpoint store puts them on disk before each checkpoint it writes
 * (`persist`), with a mark of where the file stood. The import writes a range's lines in the same tick
 * as it acknowledges the range, so after a crash the lines past the mark from the run that made it are
 * exactly those of records the resume reads again: `open` takes them out, and keeps every other line
 * (another migration's, sharing the file). A file that changed before the mark is left whole.
 */
export class RejectsWriter implements CheckpointCompanion {
  private buffer = '';
  private pendingBytes = 0;
  private unsynced = false;
  /** Flushes run one after another: two appends in flight at once may land in either order. */
  private flushing: Promise<void> = Promise.resolve();
  readonly run = randomBytes(6).toString('hex');

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** fsync fails on /dev/null and pipes, where it means nothing anyway. */
    private readonly regular: boolean,
    private flushedBytes: number,
    /** The file's last bytes, as they will be once everything written is flushed. */
    private tail: Buffer,
    /** What `open` did with an interrupted run's lines past the mark. */
    readonly resumed: { dropped: number; leftWhole?: string },
  ) {}

  /**
   * Opens (creates) the file now, so an unwritable path stops the run before anything is sent; with
   * the mark of the checkpoint being resumed, first takes out that run's lines past it.
   */
  static async open(path: string, resumeMark?: CompanionMark): Promise<RejectsWriter> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, 'a', 0o600);
      const stat = await handle.stat();
      if (!stat.isFile()) return new RejectsWriter(path, handle, false, 0, Buffer.alloc(0), { dropped: 0 });
      const resumed = resumeMark?.path === path ? await dropUnacknowledged(path, handle, stat.size, resumeMark) : { dropped: 0 };
      const size = (await handle.stat()).size;
      const tail = await readRange(path, Math.max(0, size - BEFORE_BYTES), size);
      return new RejectsWriter(path, handle, true, size, tail, resumed);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      throw unwritable(path, err);
    }
  }

  get mark(): CompanionMark {
    return { path: this.path, bytes: this.flushedBytes + this.pendingBytes, run: this.run, before: hashOf(this.tail) };
  }

  write(entry: RejectEntry): void {
    let line: string;
    try {
      line = JSON.stringify({ ...entry, run: this.run });
    } catch {
      // Nested past what JSON.stringify can walk: keep the place and the reason, not the record.
      line = JSON.stringify({ ...entry, record: undefined, recordOmitted: 'nested too deeply to write as JSON', run: this.run });
    }
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    this.buffer += `${line}\n`;
    this.pendingBytes += bytes.length;
    this.tail = bytes.length >= BEFORE_BYTES ? bytes.subarray(bytes.length - BEFORE_BYTES) : Buffer.concat([this.tail, bytes]).subarray(-BEFORE_BYTES);
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
        throw unwritable(this.path, err);
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
      throw unwritable(this.path, err);
    });
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.regular) await this.handle.sync().catch(() => undefined);
    await this.handle.close();
  }
}

function unwritable(path: string, err: unknown): CheckpointError {
  if (err instanceof CheckpointError) return err;
  return new CheckpointError('REJECTS_UNWRITABLE', `cannot write the rejects file ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
}

const hashOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/**
 * Takes out the lines the marked run wrote past its mark, keeping any other line after the mark. Left
 * whole (and said why) when the bytes before the mark are not those marked: the file was edited,
 * rotated or replaced since, and cutting at that offset could take out lines that are not those.
 */
async function dropUnacknowledged(path: string, handle: FileHandle, size: number, mark: CompanionMark): Promise<RejectsWriter['resumed']> {
  if (size <= mark.bytes) return { dropped: 0, leftWhole: size < mark.bytes ? 'it is shorter than when last marked' : undefined };
  const before = await readRange(path, Math.max(0, mark.bytes - BEFORE_BYTES), mark.bytes);
  if (hashOf(before) !== mark.before) return { dropped: 0, leftWhole: 'it changed before the point last marked' };
  if (size - mark.bytes > MAX_TAIL_BYTES) return { dropped: 0, leftWhole: 'too much was added to it since' };
  const text = (await readRange(path, mark.bytes, size)).toString('utf8');
  const own = `"run":"${mark.run}"`;
  const kept: string[] = [];
  let dropped = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.includes(own)) dropped++;
    else kept.push(line);
  }
  if (dropped === 0) return { dropped: 0 };
  await handle.truncate(mark.bytes);
  if (kept.length > 0) await handle.appendFile(`${kept.join('\n')}\n`);
  return { dropped };
}

async function readRange(path: string, from: number, to: number): Promise<Buffer> {
  if (to <= from) return Buffer.alloc(0);
  const reader = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    let at = 0;
    while (at < buffer.length) {
      const { bytesRead } = await reader.read(buffer, at, buffer.length - at, from + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  } finally {
    await reader.close();
  }
}
