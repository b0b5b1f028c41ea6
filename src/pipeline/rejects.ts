import { open, type FileHandle } from 'node:fs/promises';
import type { EntityName, JsonObject } from '../entities/types.js';
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
 * The rejects file (NDJSON), appended to across runs. Lines are buffered and flushed before each
 * checkpoint save, so a checkpoint never acknowledges a rejected record whose line is not on disk.
 */
export class RejectsWriter {
  private buffer = '';
  count = 0;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** Opens (creates) the file now, so an unwritable path stops the run before anything is sent. */
  static async open(path: string): Promise<RejectsWriter> {
    try {
      return new RejectsWriter(path, await open(path, 'a', 0o600));
    } catch (err) {
      throw new CheckpointError('REJECTS_UNWRITABLE', `cannot write the rejects file ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
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
    this.count++;
  }

  async flush(): Promise<void> {
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    await this.handle.write(text);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle.sync().catch(() => undefined);
    await this.handle.close();
  }
}
