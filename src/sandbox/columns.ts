/**
 * Compact storage behind the message store: numbers in typed arrays that double when full, and
 * texts as UTF-8 in large shared buffers. A million small JS strings and boxed cells cost twice
 * the bytes (two-byte strings for any emoji, headers, array slack); these cost what they hold.
 */

type TypedArray = Float64Array | Int32Array;

/** An append-only column of numbers (`Float64Array`: exact integers up to 2^53; `Int32Array`: small ones). */
export class NumberColumn<T extends TypedArray> {
  private cells: T;
  private used = 0;

  constructor(private readonly make: (size: number) => T) {
    this.cells = make(1024);
  }

  get length(): number {
    return this.used;
  }

  push(value: number): void {
    if (this.used === this.cells.length) {
      const grown = this.make(this.cells.length * 2);
      grown.set(this.cells);
      this.cells = grown;
    }
    this.cells[this.used++] = value;
  }

  at(index: number): number {
    return this.cells[index];
  }

  set(index: number, value: number): void {
    this.cells[index] = value;
  }
}

const CHUNK_BYTES = 4 * 1024 * 1024;

/** Texts appended as UTF-8 into 4 MB buffers; a text is found again by its position and byte length. */
export class TextArena {
  private chunks: Buffer[] = [];
  private offset = 0;

  /** Stores `text`; returns its position (chunk * CHUNK_BYTES + offset) and byte length. */
  add(text: string): { at: number; bytes: number } {
    const bytes = Buffer.byteLength(text, 'utf8');
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || this.offset + bytes > chunk.length) {
      // A text larger than a chunk gets a chunk of its own size; positions stay below 2^53.
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
      this.chunks.push(chunk);
      this.offset = 0;
    }
    const at = (this.chunks.length - 1) * CHUNK_BYTES + this.offset;
    chunk.write(text, this.offset, 'utf8');
    this.offset += bytes;
    return { at, bytes };
  }

  text(at: number, bytes: number): string {
    const chunk = this.chunks[Math.floor(at / CHUNK_BYTES)];
    const start = at % CHUNK_BYTES;
    return chunk.toString('utf8', start, start + bytes);
  }
}
