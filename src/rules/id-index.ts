import { exactH, hashId, lowerA, lowerB } from './id-hash.js';

/**
 * A set of ids sized for exports of millions of records: it keeps no strings, only a 64-bit hash of
 * the lower-cased id (the service lower-cases ids, so that is the identity that matters), a 32-bit
 * hash of the id as written (to tell a true duplicate from a case collision) and where the id was
 * first seen. 18 bytes a slot in parallel typed arrays with open addressing; the table doubles at
 * 3/4 full, so an id costs 24 bytes just before a doubling and up to 48 just after.
 *
 * Two different ids share a 64-bit hash with odds of about n^2 / 2^65: for 10 million ids, 1 in
 * 370,000 runs reports one false duplicate. A validator may afford that; a 2x memory cost it may not.
 *
 * With `{ content: true }` each slot also keeps the first record's content hash (rules/content-hash.ts,
 * 4 bytes more), so a repeated id can be told an exact duplicate or a different record.
 */

/** `add` found no earlier id equal to this one, even ignoring case. */
export const ID_NEW = 0;
/** `add` found the very same id earlier. */
export const ID_DUPLICATE = 1;
/** `add` found an earlier id equal to this one except for letter case. */
export const ID_CASE_COLLISION = 2;
export type IdAddResult = typeof ID_NEW | typeof ID_DUPLICATE | typeof ID_CASE_COLLISION;

const MAX_LOAD = 0.75;
const MAX_LINE = 0xffffffff;

export class IdIndex {
  /**
   * The two words of the lower-cased id's hash side by side (slot i at 2i, 2i+1): a probe reads one
   * cache line, not two.
   */
  private keys: Uint32Array;
  private exact: Uint32Array;
  // Uint16 covers 65,535 files; a per-channel-per-day export can pass that, and then it widens.
  private fileIdx: Uint16Array | Uint32Array;
  private lineNo: Uint32Array;
  /** Content hashes of the first records, when asked for. */
  private contents: Uint32Array | undefined;
  private mask: number;
  private count = 0;
  /** Slot of the id that the last `add`, `addHashed`, `has` or `hasHashed` met; read it with `fileAt` and `lineAt`. */
  lastSlot = -1;

  constructor(initialCapacity = 1024, options: { content?: boolean } = {}) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.keys = new Uint32Array(cap * 2);
    this.exact = new Uint32Array(cap);
    this.fileIdx = new Uint16Array(cap);
    this.lineNo = new Uint32Array(cap);
    if (options.content === true) this.contents = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Slots in the table; it doubles before `size` passes 3/4 of this. */
  get capacity(): number {
    return this.mask + 1;
  }

  /** Bytes held by the table, for the memory budget. */
  get byteLength(): number {
    const columns = this.keys.byteLength + this.exact.byteLength + this.fileIdx.byteLength + this.lineNo.byteLength;
    return columns + (this.contents?.byteLength ?? 0);
  }

  /**
   * Records `id` first seen at file `file` (an index the caller keeps) and `line`, with its record's
   * content hash when the index keeps them, unless an equal id came before.
   */
  add(id: string, file: number, line: number, content = 0): IdAddResult {
    hashId(id);
    return this.addHashed(file, line, content);
  }

  /** `add` for the id `hashId` hashed last: callers that needed the hash anyway do not hash twice. */
  addHashed(file: number, line: number, content = 0): IdAddResult {
    const slot = this.probe();
    if (this.keys[2 * slot] !== 0 || this.keys[2 * slot + 1] !== 0) {
      this.lastSlot = slot;
      return this.exact[slot] === exactH ? ID_DUPLICATE : ID_CASE_COLLISION;
    }
    if (this.count + 1 > (this.mask + 1) * MAX_LOAD) {
      this.grow();
      return this.addHashed(file, line, content);
    }
    if (file > 0xffff && this.fileIdx instanceof Uint16Array) this.fileIdx = Uint32Array.from(this.fileIdx);
    this.keys[2 * slot] = lowerA;
    this.keys[2 * slot + 1] = lowerB;
    this.exact[slot] = exactH;
    this.fileIdx[slot] = file;
    this.lineNo[slot] = Math.min(Math.max(line, 0), MAX_LINE);
    if (this.contents !== undefined) this.contents[slot] = content;
    this.count++;
    this.lastSlot = slot;
    return ID_NEW;
  }

  /** Whether an id equal to `id` ignoring case was added; sets `lastSlot` when it was. */
  has(id: string): boolean {
    hashId(id);
    return this.hasHashed();
  }

  /** `has` for the id `hashId` hashed last. */
  hasHashed(): boolean {
    const slot = this.probe();
    if (this.keys[2 * slot] === 0 && this.keys[2 * slot + 1] === 0) return false;
    this.lastSlot = slot;
    return true;
  }

  fileAt(slot: number): number {
    return this.fileIdx[slot];
  }

  lineAt(slot: number): number {
    return this.lineNo[slot];
  }

  /** The content hash kept at `slot` (0 when the index keeps none). */
  contentAt(slot: number): number {
    return this.contents?.[slot] ?? 0;
  }

  /** The slot holding the current hash, or the empty slot where it would go (linear probing). */
  private probe(): number {
    const keys = this.keys;
    const mask = this.mask;
    let slot = lowerA & mask;
    for (;;) {
      const a = keys[2 * slot];
      const b = keys[2 * slot + 1];
      if ((a === lowerA && b === lowerB) || (a === 0 && b === 0)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const { keys, exact, fileIdx, lineNo, contents } = this;
    const oldCap = exact.length;
    const cap = oldCap * 2;
    this.keys = new Uint32Array(cap * 2);
    this.exact = new Uint32Array(cap);
    this.fileIdx = fileIdx instanceof Uint16Array ? new Uint16Array(cap) : new Uint32Array(cap);
    this.lineNo = new Uint32Array(cap);
    if (contents !== undefined) this.contents = new Uint32Array(cap);
    this.mask = cap - 1;
    const to = this.keys;
    for (let i = 0; i < oldCap; i++) {
      const a = keys[2 * i];
      const b = keys[2 * i + 1];
      if (a === 0 && b === 0) continue;
      let slot = a & this.mask;
      while (to[2 * slot] !== 0 || to[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
      to[2 * slot] = a;
      to[2 * slot + 1] = b;
      this.exact[slot] = exact[i];
      this.fileIdx[slot] = fileIdx[i];
      this.lineNo[slot] = lineNo[i];
      if (contents !== undefined) this.contents![slot] = contents[i];
    }
  }
}
