/**
 * An upper bound of the UTF-8 bytes of JSON.stringify(v), without building the string: an escaped
 * UTF-16 unit takes at most 6 bytes. Most records are far under their size limits, so callers measure
 * exactly (serialise) only when this bound passes the limit. Shared by the validator and the sandbox:
 * it only decides when to measure, never what the limit is.
 */

let watchedKey: string | undefined;
let sawWatchedKey = false;

/** The bound; with `watchKey`, also notes whether an object key of that name is inside (`boundSawKey`). */
export function jsonBytesBound(v: unknown, watchKey?: string): number {
  watchedKey = watchKey;
  sawWatchedKey = false;
  return bound(v);
}

/** Whether the last jsonBytesBound walk met its `watchKey`. */
export function boundSawKey(): boolean {
  return sawWatchedKey;
}

function bound(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length * 6 + 2;
    case 'number':
      // The longest a double prints: -0.0000012345678901234567 (exponents from -7 to 20 print in full).
      return 25;
    case 'boolean':
      return 5;
    case 'object': {
      if (v === null) return 4;
      let n = 2;
      if (Array.isArray(v)) {
        // undefined, a function or a symbol (0 here) is written as null in an array.
        for (let i = 0; i < v.length; i++) n += (bound(v[i]) || 4) + 1;
        return n;
      }
      for (const key in v) {
        if (key === watchedKey) sawWatchedKey = true;
        n += key.length * 6 + 4 + bound((v as Record<string, unknown>)[key]);
      }
      return n;
    }
    default:
      return 0;
  }
}
