/**
 * A set of ids sized for exports of millions of records: it keeps no strings, only a 64-bit hash of
 * the lower-cased id (the service lower-cases ids, so that is the identity that matters), a 32-bit
 * hash of the id as written (to tell a true duplicate from a case collision) and where the id was
 * first seen. 18 bytes a slot in parallel typed arrays with open addressing; the table doubles at
 * 3/4 full, so an id costs 24 bytes just before a doubling and up to 48 just after.
 *
 * Two different ids share a 64-bit hash with odds of about n^2 / 2^65: for 10 million ids, 1 in
 * 370,000 runs reports one false duplicate. A validator may afford that; a 2x memory cost it may not.
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

// Hash results travel in module variables: a tuple per id would be garbage on the hot path.
let lowerA = 0;
let lowerB = 0;
let exactH = 0;

/** Murmur3's finaliser: spreads every input bit over the output, so low bits can pick the slot. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two independent hashes (FNV-1a and murmur3 rounds) of the lower-cased id, one FNV-1a of it as written. */
function hashId(id: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  let x = 0x050c5d1f;
  const n = id.length;
  let lowerLength = n;
  let i = 0;
  for (; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7f) break;
    const l = c >= 65 && c <= 90 ? c | 32 : c;
    a = Math.imul(a ^ l, 0x01000193);
    b = mixMurmur(b, l);
    x = Math.imul(x ^ c, 0x01000193);
  }
  if (i < n) {
    // Beyond ASCII, lower-casing needs Unicode tables; such ids break the charset rule anyway.
    const lower = id.toLowerCase();
    lowerLength = lower.length;
    a = 0x811c9dc5;
    b = 0x9747b28c;
    x = 0x050c5d1f;
    for (let j = 0; j < lower.length; j++) {
      const l = lower.charCodeAt(j);
      a = Math.imul(a ^ l, 0x01000193);
      b = mixMurmur(b, l);
    }
    for (let j = 0; j < n; j++) x = Math.imul(x ^ id.charCodeAt(j), 0x01000193);
  }
  lowerA = fmix(a ^ lowerLength);
  lowerB = fmix(b ^ lowerLength);
  // Zero in both words marks an empty slot.
  if (lowerA === 0 && lowerB === 0) lowerB = 1;
  exactH = fmix(x);
}

function mixMurmur(h: number, c: number): number {
  let k = Math.imul(c, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export class IdIndex {
  private keyA: Uint32Array;
  private keyB: Uint32Array;
  private exact: Uint32Array;
  // Uint16 covers 65,535 files; a per-channel-per-day export can pass that, and then it widens.
  private fileIdx: Uint16Array | Uint32Array;
  private lineNo: Uint32Array;
  private mask: number;
  private count = 0;
  /** Slot of the id that the last `add` or `find` met; read it with `fileAt` and `lineAt`. */
  lastSlot = -1;

  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap < initialCapacity) cap *= 2;
    this.keyA = new Uint32Array(cap);
    this.keyB = new Uint32Array(cap);
    this.exact = new Uint32Array(cap);
    this.fileIdx = new Uint16Array(cap);
    this.lineNo = new Uint32Array(cap);
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
    return this.keyA.byteLength + this.keyB.byteLength + this.exact.byteLength + this.fileIdx.byteLength + this.lineNo.byteLength;
  }

  /** Records `id` first seen at file `file` (an index the caller keeps) and `line`, unless an equal id came before. */
  add(id: string, file: number, line: number): IdAddResult {
    hashId(id);
    const slot = this.probe();
    if (this.keyA[slot] !== 0 || this.keyB[slot] !== 0) {
      this.lastSlot = slot;
      return this.exact[slot] === exactH ? ID_DUPLICATE : ID_CASE_COLLISION;
    }
    if ((this.count + 1) > (this.mask + 1) * MAX_LOAD) {
      this.grow();
      return this.add(id, file, line);
    }
    if (file > 0xffff && this.fileIdx instanceof Uint16Array) this.fileIdx = Uint32Array.from(this.fileIdx);
    this.keyA[slot] = lowerA;
    this.keyB[slot] = lowerB;
    this.exact[slot] = exactH;
    this.fileIdx[slot] = file;
    this.lineNo[slot] = Math.min(Math.max(line, 0), MAX_LINE);
    this.count++;
    this.lastSlot = slot;
    return ID_NEW;
  }

  /** Whether an id equal to `id` ignoring case was added; sets `lastSlot` when it was. */
  has(id: string): boolean {
    hashId(id);
    const slot = this.probe();
    if (this.keyA[slot] === 0 && this.keyB[slot] === 0) return false;
    this.lastSlot = slot;
    return true;
  }

  fileAt(slot: number): number {
    return this.fileIdx[slot];
  }

  lineAt(slot: number): number {
    return this.lineNo[slot];
  }

  /** The slot holding the current hash, or the empty slot where it would go (linear probing). */
  private probe(): number {
    const keyA = this.keyA;
    const keyB = this.keyB;
    const mask = this.mask;
    let slot = lowerA & mask;
    for (;;) {
      const a = keyA[slot];
      const b = keyB[slot];
      if ((a === lowerA && b === lowerB) || (a === 0 && b === 0)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const { keyA, keyB, exact, fileIdx, lineNo } = this;
    const cap = keyA.length * 2;
    this.keyA = new Uint32Array(cap);
    this.keyB = new Uint32Array(cap);
    this.exact = new Uint32Array(cap);
    this.fileIdx = fileIdx instanceof Uint16Array ? new Uint16Array(cap) : new Uint32Array(cap);
    this.lineNo = new Uint32Array(cap);
    this.mask = cap - 1;
    for (let i = 0; i < keyA.length; i++) {
      const a = keyA[i];
      const b = keyB[i];
      if (a === 0 && b === 0) continue;
      let slot = a & this.mask;
      while (this.keyA[slot] !== 0 || this.keyB[slot] !== 0) slot = (slot + 1) & this.mask;
      this.keyA[slot] = a;
      this.keyB[slot] = b;
      this.exact[slot] = exact[i];
      this.fileIdx[slot] = fileIdx[i];
      this.lineNo[slot] = lineNo[i];
    }
  }
}
