import type { JsonObject, MappedRecord } from '../entities/types.js';
import { hasIdChars, MAX_ID_LENGTH } from './id-hash.js';

export { hasIdChars, MAX_ID_LENGTH };

// Regexes live at module level: rules run per record, millions of times, and must not recompile them.
const BAD_ID_CHAR = /[^A-Za-z0-9_-]/u;
// The host part must be non-empty; `URL.canParse` alone accepts `http:foo` and spaces it would encode.
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const ANY_URL = /^[a-z][a-z0-9+.-]*:[^\s]+$/i;
const NON_SPACE = /\S/;

/** Absent means undefined or JSON null: exports write null for "no value" and senders drop both. */
export function isAbsent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON type name a user sees in an export, for messages like "got array". */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function isBlank(s: string): boolean {
  // Almost every text starts with a printable ASCII character: no regex call for those.
  const c = s.charCodeAt(0);
  if (c > 0x20 && c < 0x7f) return false;
  return !NON_SPACE.test(s);
}

/** Characters as the service counts them: code points, so an emoji or a CJK character is one. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Code points of `s` when above `limit`, else 0; UTF-16 length bounds the count, so most strings skip the scan. */
export function overLimit(s: string, limit: number): number {
  if (s.length <= limit) return 0;
  const n = codePointLength(s);
  return n > limit ? n : 0;
}

/**
 * UTF-8 byte length of `json` when above `limit`, else 0; a UTF-16 unit takes 1 to 3 bytes, which
 * bounds most cases.
 */
export function bytesOverLimit(json: string, limit: number): number {
  if (json.length * 3 <= limit) return 0;
  const n = Buffer.byteLength(json, 'utf8');
  return n > limit ? n : 0;
}

/** 1 to 100 characters, each an ASCII letter, digit, `_` or `-`. */
export function isIdShaped(s: string): boolean {
  return s.length <= MAX_ID_LENGTH && hasIdChars(s);
}

/** The first character an id may not hold, shown with its code point (spaces and look-alikes are invisible). */
export function describeBadIdChar(s: string): string {
  const ch = BAD_ID_CHAR.exec(s)?.[0] ?? '';
  const cp = ch.codePointAt(0) ?? 0;
  return `${JSON.stringify(ch)} (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** An absolute http(s) URL, as avatar, link, icon and attachments need. */
export function isHttpUrl(s: string): boolean {
  return HTTP_URL.test(s) && URL.canParse(s);
}

/** Any absolute URL with a scheme: button actions may deep-link into an app (`myapp://...`). */
export function isAbsoluteUrl(s: string): boolean {
  return ANY_URL.test(s) && URL.canParse(s);
}

/** True when the mapper already reported a problem for `field`, so validation does not report it twice. */
export function mapperFlagged(record: MappedRecord, field: string): boolean {
  const problems = record.problems;
  for (let i = 0; i < problems.length; i++) if (problems[i].field === field) return true;
  return false;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A UNIX time as ISO text, so a message shows the dates it compares. */
export function isoTime(sec: number): string {
  const d = new Date(sec * 1000);
  return Number.isNaN(d.getTime()) ? String(sec) : d.toISOString().replace('.000Z', 'Z');
}
