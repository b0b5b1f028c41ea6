/**
 * What verify holds of one part of the export at a time (verify-store.ts): per expected record a few
 * numbers, never the record: 19 bytes each (the id's 53-bit hash, the compared fields' 32-bit digest
 * and which fields the export set, its place in the export, and what the service showed of it), plus
 * an open-addressing table of ids, where a Map of id strings would take five times as much.
 */

/** Not seen on the service (yet). */
export const UNSEEN = 0;
/** On the service, with the same compared fields. */
export const SAME = 1;
/** On the service, with another value in a compared field. */
export const DIFFERENT = 2;

/** cyrb53 (public domain, bryc): a fast 53-bit string hash; ids colliding at 1M is ~1 in 10^10. */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // Never 0: 0 marks an empty slot of the table.
  return 4294967296 * (2097151 & h2) + (h1 >>> 0) + 1;
}

/** The key verify matches on: the service lower-cases ids (docs/verify.md), so `Bob` and `bob` are one. */
export const keyOf = (id: string): number => hash53(id.toLowerCase());

/** State bits beside UNSEEN/SAME/DIFFERENT: beyond retention, a repeated id. */
const BEYOND = 16;
const REPEAT = 32;

export interface ExpectedEntry {
  key: number;
  digest: number;
  /** Bit i set: the export gave compared field i. */
  mask: number;
  /** A message older than the retention window: not readable, never missing. */
  beyondRetention: boolean;
  /** Its place among the export's records as both readings meet them. */
  ord: number;
}

/** The expected records of one entity, in growable typed arrays, found by key once `seal()`ed. */
export class ExpectedIndex {
  size = 0;
  /** Records whose id came before in the export (see `seal`). */
  repeats = 0;
  /** Records offered; with a sample, more than `size`. */
  offered = 0;
  private keys: Float64Array;
  private digests: Uint32Array;
  private masks: Uint16Array;
  /** UNSEEN, SAME or DIFFERENT, with the BEYOND and REPEAT bits. */
  private states: Uint8Array;
  private ords: Uint32Array;
  private table = new Int32Array(0);

  /**
   * `sample`: keep a uniform sample of this many (reservoir sampling); 0 keeps all. `capacity`: the
   * records expected, when known (a count of the records ahead): sized once, the arrays never hold a copy while
   * they grow (at a million messages that copy was a tenth of the memory budget).
   */
  constructor(
    private readonly sample = 0,
    capacity = 1024,
    private readonly random: () => number = Math.random,
  ) {
    const n = Math.max(16, sample > 0 ? Math.min(sample, capacity) : capacity);
    this.keys = new Float64Array(n);
    this.digests = new Uint32Array(n);
    this.masks = new Uint16Array(n);
    this.states = new Uint8Array(n);
    this.ords = new Uint32Array(n);
  }

  add(e: ExpectedEntry): void {
    this.offered++;
    let at = this.size;
    if (this.sample > 0 && this.size >= this.sample) {
      at = Math.floor(this.random() * this.offered);
      if (at >= this.sample) return;
    } else {
      if (this.size === this.keys.length) this.grow();
      this.size++;
    }
    this.keys[at] = e.key;
    this.digests[at] = e.digest;
    this.masks[at] = e.mask;
    this.states[at] = e.beyondRetention ? BEYOND : 0;
    this.ords[at] = e.ord;
  }

  /**
   * Builds the table. A key met twice keeps its first record: the service stored that one and
   * answered the later copy already-exists; the copies are `repeats`, neither expected nor missing.
   */
  seal(): void {
    let slots = 1024;
    while (slots < this.size * 2) slots *= 2;
    this.table = new Int32Array(slots);
    for (let i = 0; i < this.size; i++) {
      const slot = this.slotOf(this.keys[i]);
      if (this.table[slot] === 0) this.table[slot] = i + 1;
      else {
        this.states[i] |= REPEAT;
        this.repeats++;
      }
    }
  }

  /** A later record of a key already held. */
  isRepeat(i: number): boolean {
    return (this.states[i] & REPEAT) !== 0;
  }

  /** The index of the record with this key, or -1. */
  find(key: number): number {
    const at = this.table[this.slotOf(key)];
    return at === 0 ? -1 : at - 1;
  }

  ordOf(i: number): number {
    return this.ords[i];
  }
  keyAt(i: number): number {
    return this.keys[i];
  }
  digestOf(i: number): number {
    return this.digests[i];
  }
  maskOf(i: number): number {
    return this.masks[i];
  }
  stateOf(i: number): number {
    return this.states[i] & 15;
  }
  isBeyondRetention(i: number): boolean {
    return (this.states[i] & BEYOND) !== 0;
  }
  setState(i: number, state: number): void {
    this.states[i] = (this.states[i] & ~15) | state;
  }
  /** Linear probing over a power-of-two table: the slot holding `key`, or the empty one it would take. */
  private slotOf(key: number): number {
    const mask = this.table.length - 1;
    let slot = ((key % 4294967296) >>> 0) & mask;
    for (;;) {
      const at = this.table[slot];
      if (at === 0 || this.keys[at - 1] === key) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const n = Math.ceil(this.keys.length * 1.5);
    const copy = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(
      a: T,
      make: new (n: number) => T,
    ) => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.keys = copy(this.keys, Float64Array);
    this.digests = copy(this.digests, Uint32Array);
    this.masks = copy(this.masks, Uint16Array);
    this.states = copy(this.states, Uint8Array);
    this.ords = copy(this.ords, Uint32Array);
  }
}
