/**
 * An upper bound of the UTF-8 bytes of JSON.stringify(v), without building the string: an escaped
 * UTF-16 unit takes at most 6 bytes. Most records are far under their size limits, so callers measure
 * exactly (serialise) only when this bound passes the limit. Shared by the validator and the sandbox:
 * it only decides when to measure, never what the limit is.
 */

/** The bound of `v`. */
export function jsonBytesBound(v: unknown): number {
  return bound(v, { key: undefined, saw: false });
}

/** The bound, and whether an object key named `key` is anywhere inside. */
export function jsonBytesBoundWatching(v: unknown, key: string): { bytes: number; sawKey: boolean } {
  const watch = { key, saw: false };
  const bytes = bound(v, watch);
  return { bytes, sawKey: watch.saw };
}

/** What one walk looks for besides the size: the key it was asked to watch, and whether it met it. */
interface Watch {
  key: string | undefined;
  saw: boolean;
}

function bound(v: unknown, watch: Watch): number {
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
        for (let i = 0; i < v.length; i++) n += (bound(v[i], watch) || 4) + 1;
        return n;
      }
      for (const key in v) {
        if (key === watch.key) watch.saw = true;
        n += key.length * 6 + 4 + bound((v as Record<string, unknown>)[key], watch);
      }
      return n;
    }
    default:
      return 0;
  }
}
