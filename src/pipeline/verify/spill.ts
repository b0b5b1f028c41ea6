/**
 * Fixed-size binary records on disk, written and read in chunks: what keeps verify's memory flat at
 * any size (a few buffers, never a record per record). Records keep the order they were written in.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

const CHUNK = 256 * 1024;
/** What the buffers of one set of part files, open at once, may take together. */
const PARTS_BUDGET = 4 * 1024 * 1024;

/** The buffer of each of `parts` writers open at once: smaller as they are more, so together they stay flat. */
export const partChunk = (parts: number): number =>
  Math.max(16 * 1024, Math.min(CHUNK, Math.floor(PARTS_BUDGET / parts)));

export class SpillWriter {
  count = 0;
  private readonly fd: number;
  private readonly buf: Buffer;
  private used = 0;

  constructor(
    readonly file: string,
    readonly recordSize: number,
    chunk = CHUNK,
  ) {
    this.fd = openSync(file, 'w', 0o600);
    this.buf = Buffer.allocUnsafe(Math.max(recordSize, Math.floor(chunk / recordSize) * recordSize));
  }

  /** The next record's bytes, zeroed, to be filled in before the next call. */
  next(): DataView {
    if (this.used + this.recordSize > this.buf.length) this.flush();
    const at = this.used;
    this.buf.fill(0, at, at + this.recordSize);
    this.used += this.recordSize;
    this.count++;
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, this.recordSize);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    let done = 0;
    while (done < this.used) done += writeSync(this.fd, this.buf, done, this.used - done);
    this.used = 0;
  }
}

/** Each record of `file` in order, as a view that is valid until the next one. */
export function* spillRecords(file: string, recordSize: number): Generator<DataView> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.max(recordSize, Math.floor(CHUNK / recordSize) * recordSize));
    let kept = 0;
    for (;;) {
      const got = readSync(fd, buf, kept, buf.length - kept, null);
      const have = kept + got;
      const whole = have - (have % recordSize);
      for (let at = 0; at < whole; at += recordSize) {
        yield new DataView(buf.buffer, buf.byteOffset + at, recordSize);
      }
      kept = have - whole;
      if (kept > 0) buf.copy(buf, 0, whole, have);
      if (got === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

/** Appends text lines and says where each starts: service items' values, read back for a few. */
export class TextLog {
  private readonly fd: number;
  private texts: string[] = [];
  private pending = 0;
  private offset = 0;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w+', 0o600);
  }

  /** Appends `text`; returns its offset and byte length. Encoded a chunk at a time, not a line at a time. */
  append(text: string): { offset: number; length: number } {
    const length = Buffer.byteLength(text, 'utf8');
    const at = { offset: this.offset, length };
    this.texts.push(text);
    this.pending += length;
    this.offset += length;
    if (this.pending >= CHUNK) this.flush();
    return at;
  }

  read(offset: number, length: number): string {
    this.flush();
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const got = readSync(this.fd, buf, done, length - done, offset + done);
      if (got === 0) break;
      done += got;
    }
    return buf.toString('utf8', 0, done);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.pending === 0) return;
    const all = Buffer.from(this.texts.join(''), 'utf8');
    let done = 0;
    while (done < all.length) done += writeSync(this.fd, all, done, all.length - done);
    this.texts = [];
    this.pending = 0;
  }
}
