import { lowerA, lowerB } from './id-hash.js';

const BLOCK_BYTES = 128;
const BLOCK_WORDS = BLOCK_BYTES / 4;
const HASHES = 16;

/**
 * Odd multipliers, one per bit: `(x * SALT[i]) >>> 27` picks bit i's place in its word (as Parquet's
 * split-block filter does).
 */
const SALT = new Uint32Array([
  0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31, 0x3febcac5,
  0x13ddca9f, 0x1909e249, 0xd4ac4847, 0xce3c9829, 0xeab44c73, 0x8a1dc207, 0xe5fcc181,
]);

/**
 * A Bloom filter of ids (lower-cased, as the service compares them) in a fixed number of bytes, so
 * memory stays flat however many messages an export holds. "Seen" may be wrong (a false positive),
 * "not seen" never is: callers treat a hit as a suspect and confirm it another way.
 *
 * Split-block: the 16 bits of an id all fall in one 1,024-bit block (128 bytes, two cache lines), so
 * an id costs one or two cache misses instead of 16 across the whole array. The block comes from the
 * first hash; bit i goes to word 2i or 2i+1 (a bit of the first hash's rest) at the place that the
 * second hash times SALT[i] picks. So two ids in one block share their whole pattern only when 47 hash bits
 * agree; plain double hashing inside the block gave 19 bits of pattern, and 16 false positives at 1M.
 *
 * False positives at the default 16 MB (expected count over a whole run of n distinct ids, from the
 * Poisson load of the blocks, and counted over sequential muids): n = 1M: 1e-7 (0); 3M: 0.015 (0);
 * 5M: about 5 (3); 10M: about 5,000 (6,668). Each costs nothing but makes validate read the
 * messages a second time, so up to ~3M messages a clean export is read once; beyond, the second
 * reading becomes likely (and it still reports no false duplicate).
 */
export class IdBloomFilter {
  /** 16 MB: the memory budget (150 MB RSS) leaves room for it, and 3M messages stay below one false positive. */
  static readonly DEFAULT_BYTES = 1 << 24;

  private words: Uint32Array | undefined;
  private readonly blockMask: number;
  private readonly bytes: number;

  /** `bytes`: a power of two, at least one 128-byte block. The array is allocated on the first `add`. */
  constructor(bytes = IdBloomFilter.DEFAULT_BYTES) {
    if (!Number.isInteger(bytes) || bytes < BLOCK_BYTES || (bytes & (bytes - 1)) !== 0) {
      throw new RangeError(`Bloom filter size must be a power of two of at least ${BLOCK_BYTES} bytes; got ${bytes}`);
    }
    this.bytes = bytes;
    this.blockMask = bytes / BLOCK_BYTES - 1;
  }

  /** Bytes held (0 until the first id). */
  get byteLength(): number {
    return this.words === undefined ? 0 : this.bytes;
  }

  /**
   * Adds the id `hashId` hashed last; true when all its bits were set already, i.e. an equal id
   * (ignoring case) may have been added before.
   */
  add(): boolean {
    return this.addKey(lowerA, lowerB);
  }

  /** `add` for a key of two independent 32-bit hashes (a muid's with its content's: ExportIndex). */
  addKey(a: number, b: number): boolean {
    const words = (this.words ??= new Uint32Array(this.bytes / 4));
    const base = (a & this.blockMask) * BLOCK_WORDS;
    const x = b;
    // The block took a's low 17 bits (at 16 MB); its top 15 choose the word of pairs 0-14 (pair 15 keeps word 30).
    const y = a >>> 17;
    let seen = 1;
    for (let i = 0; i < HASHES; i++) {
      const w = base + 2 * i + ((y >>> i) & 1);
      const mask = 1 << (Math.imul(x, SALT[i]) >>> 27);
      const old = words[w];
      // Branch-free: whether a bit was set is a coin toss the CPU cannot predict.
      seen &= (old & mask) === 0 ? 0 : 1;
      words[w] = old | mask;
    }
    return seen === 1;
  }
}
