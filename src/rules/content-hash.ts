/**
 * A 32-bit hash of a mapped payload, to tell an exact duplicate (the same record twice, as exporters
 * run over overlapping ranges write it) from a different record under the same id. It hashes what
 * would be sent: JSON values, with object keys in any order (JSON has no key order to keep) and
 * undefined left out as JSON.stringify leaves it out. Walked directly, without serialising: it runs
 * once per record on a million-record path.
 *
 * Two different payloads share a hash with odds of 1 in 2^32. Only records that already share an id
 * are compared, and such a record can never be imported twice (the service answers already-exists),
 * so a collision costs one id.duplicate report turned into a `duplicate` skip, nothing more.
 */

/** Deeper than this the walk stops: such a record fails validation (value.too-deep) anyway. */
const MAX_DEPTH = 64;

/** Murmur3's finaliser: every input bit spread over the 32 output bits. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashString(s: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h ^ s.length);
}

function hashValue(v: unknown, depth: number): number {
  switch (typeof v) {
    case 'string':
      return hashString(v, 0x811c9dc5);
    case 'number':
      // Integers by their bits; other numbers by the text JSON would carry.
      if (Number.isSafeInteger(v)) {
        return mix32(Math.imul(v | 0, 0x9e3779b1) ^ mix32(Math.floor(v / 4294967296) ^ 0x27d4eb2f));
      }
      return hashString(JSON.stringify(v), 0x165667b1);
    case 'boolean':
      return v ? 0x5bd1e995 : 0x1b873593;
    case 'object':
      break;
    default:
      return 0x2f0a3b1d;
  }
  if (v === null) return 0x3c6ef372;
  if (depth >= MAX_DEPTH) return 0x7f4a7c15;
  if (Array.isArray(v)) {
    let h = 0x6a09e667 ^ v.length;
    // undefined in an array is null in JSON.
    for (let i = 0; i < v.length; i++) h = mix32(Math.imul(h, 31) + hashValue(v[i] ?? null, depth + 1));
    return h;
  }
  // Each key-value pair hashed alone, the pairs added: the same sum in any key order.
  let sum = 0;
  let n = 0;
  const o = v as Record<string, unknown>;
  for (const key in o) {
    const value = o[key];
    if (value === undefined) continue;
    sum = (sum + mix32(hashString(key, 0x510e527f) ^ Math.imul(hashValue(value, depth + 1), 0x85ebca77))) | 0;
    n++;
  }
  return mix32(sum ^ Math.imul(n, 0xc2b2ae3d));
}

/** The payload's content hash (never 0, so 0 can mean "none" in a table). */
export function contentHash(payload: unknown): number {
  return hashValue(payload, 0) || 1;
}
