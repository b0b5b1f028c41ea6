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

/**
 * The rejects file (NDJSON), appended to across runs. Lines are buffered; the checkpoint store puts
 * them on disk before each checkpoint it writes (`persist`), with the file's length beside the
 * acknowledgements: the import writes a range's lines in the same tick as it acknowledges the range,
 * so after a crash the lines beyond that length are exactly those of records the resume reads again,
 * and `open` cuts them off instead of letting them appear twice.
 */
export class RejectsWriter implements CheckpointCompanion {
  private buffer = '';
  private pendingBytes = 0;
  private unsynced = false;
  /** Flushes run one after another: two appends in flight at once may land in either order. */
  private flushing: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private flushedBytes: number,
    /** Lines an interrupted run wrote for records it never acknowledged, cut off by `open`. */
    readonly droppedLines: number,
  ) {}

  /**
   * Opens (creates) the file now, so an unwritable path stops the run before anything is sent. With
   * the mark of the checkpoint being resumed, lines past it are cut off, unless the file is another
   * one or no longer ends a line there (it was edited, rotated or shared): then it is left whole.
   */
  static async open(path: string, resumeMark?: CompanionMark): Promise<RejectsWriter> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, 'a+', 0o600);
      let size = (await handle.stat()).size;
      let dropped = 0;
      if (resumeMark?.path === path && size > resumeMark.bytes && (await endsLineAt(handle, resumeMark.bytes))) {
        dropped = await countLines(handle, resumeMark.bytes, size);
        await handle.truncate(resumeMark.bytes);
        size = resumeMark.bytes;
      }
      return new RejectsWriter(path, handle, size, dropped);
    } catch (err) {
      await handle?.close().catch(() => undefined);
      throw unwritable(path, err);
    }
  }

  get length(): number {
    return this.flushedBytes + this.pendingBytes;
  }

  write(entry: RejectEntry): void {
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      // Nested past what JSON.stringify can walk: keep the place and the reason, not the record.
      line = JSON.stringify({ ...entry, record: undefined, recordOmitted: 'nested too deeply to write as JSON' });
    }
    this.buffer += `${line}\n`;
    this.pendingBytes += Buffer.byteLength(line, 'utf8') + 1;
  }

  flush(): Promise<void> {
    if (this.buffer === '') return this.flushing;
    const text = this.buffer;
    const bytes = this.pendingBytes;
    this.buffer = '';
    this.pendingBytes = 0;
    this.flushedBytes += bytes;
    this.flushing = this.flushing.then(async () => {
      await this.handle.write(text);
      this.unsynced = true;
    });
    return this.flushing;
  }

  async persist(): Promise<void> {
    try {
      await this.flush();
      if (this.unsynced) {
        this.unsynced = false;
        await this.handle.sync();
      }
    } catch (err) {
      throw unwritable(this.path, err);
    }
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle.sync().catch(() => undefined);
    await this.handle.close();
  }
}

function unwritable(path: string, err: unknown): CheckpointError {
  return new CheckpointError('REJECTS_UNWRITABLE', `cannot write the rejects file ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
}

async function endsLineAt(handle: FileHandle, bytes: number): Promise<boolean> {
  if (bytes === 0) return true;
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, bytes - 1);
  return bytesRead === 1 && buffer[0] === 0x0a;
}

async function countLines(handle: FileHandle, from: number, to: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let lines = 0;
  for (let at = from; at < to; ) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, to - at), at);
    if (bytesRead === 0) break;
    for (let i = 0; i < bytesRead; i++) if (chunk[i] === 0x0a) lines++;
    at += bytesRead;
  }
  return lines;
}
