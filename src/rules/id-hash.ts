/**
 * The hashes every id structure (IdIndex, IdBloomFilter) keys on: two independent 32-bit hashes of
 * the lower-cased id (the service lower-cases ids, so that is the identity that matters) and one of
 * the id as written (to tell a true duplicate from a case collision). The same walk over the id also
 * tells whether it is id-shaped, so a reference is looked at once, not once for the regex and again
 * for the hash.
 */

// Results travel in module variables: a tuple per id would be garbage on the hot path.
/** First hash of the lower-cased id from the last `hashId`; never 0 together with `lowerB`. */
export let lowerA = 0;
/** Second, independent hash of the lower-cased id from the last `hashId`. */
export let lowerB = 0;
/** Hash of the id as written from the last `hashId`. */
export let exactH = 0;
/** Whether the last hashed id has 1 to 100 characters, all ASCII letters, digits, `_` or `-`. */
export let idShaped = false;

/** Longest id the service stores (uid, guid, muid). */
export const MAX_ID_LENGTH = 100;

/** 1 for the characters an id may hold: ASCII letters, digits, `_` and `-`. */
const ID_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
  ID_CHAR[c] = ok ? 1 : 0;
}

/**
 * Whether `s` is non-empty and every character is an ASCII letter, digit, `_` or `-`; a loop beats a
 * regex call for short ids.
 */
export function hasIdChars(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f || ID_CHAR[c] === 0) return false;
  }
  return true;
}

/** Murmur3's finaliser: spreads every input bit over the output, so low bits can pick a slot. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function mixMurmur(h: number, c: number): number {
  let k = Math.imul(c, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Two independent hashes (FNV-1a and murmur3 rounds) of the lower-cased id, one FNV-1a of it as written. */
export function hashId(id: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  let x = 0x050c5d1f;
  const n = id.length;
  let lowerLength = n;
  let shaped = 1;
  let i = 0;
  for (; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7f) break;
    shaped &= ID_CHAR[c];
    const l = c >= 65 && c <= 90 ? c | 32 : c;
    a = Math.imul(a ^ l, 0x01000193);
    b = mixMurmur(b, l);
    x = Math.imul(x ^ c, 0x01000193);
  }
  if (i < n) {
    // Beyond ASCII, lower-casing needs Unicode tables; such ids break the charset rule anyway.
    shaped = 0;
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
  idShaped = shaped === 1 && n > 0 && n <= MAX_ID_LENGTH;
  lowerA = fmix(a ^ lowerLength);
  lowerB = fmix(b ^ lowerLength);
  // Zero in both words marks an empty slot of an IdIndex.
  if (lowerA === 0 && lowerB === 0) lowerB = 1;
  exactH = fmix(x);
}
