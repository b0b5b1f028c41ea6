import type { JsonObject } from '../entities/types.js';
import { jsonBytesBound } from '../json/size-bound.js';

/**
 * Field-level checks shared by the record rules. Each returns a problem message or undefined, so a
 * rule can stop at the first problem the way the service answers one error per record.
 */

/**
 * Letters, digits, '_' and '-' only (a loop: the regex cost more than the rest of a record's checks).
 * src/rules/id-hash.ts has the same test; the sandbox keeps its own on purpose, as for every rule here:
 * it is the service the tool's checks are tested against, so a mistake in one must not hide in both.
 */
function isIdText(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
    if (!ok) return false;
  }
  return value.length > 0;
}
const MAX_ID_CHARS = 100;
/** Values above this are milliseconds sent by mistake (seconds stay below it until the year 5138). */
export const MAX_SECONDS = 1e11;
/**
 * Values below this (1970-01-02T00:00:00Z) are an exporter's "never" (0, -1, the epoch in a time
 * zone), not 10-digit UNIX seconds: the service refuses them rather than store 1970 as a real time.
 */
export const MIN_SECONDS = 86_400;
const MAX_URL_CHARS = 3000;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Characters as the service counts them: code points, so an emoji is one. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function utf8Size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/**
 * Whether `value` serialises to at most `max` bytes. Most records are far below their limit: the
 * bound settles them without serialising; only a value near the limit is measured exactly.
 */
export function fitsBytes(value: unknown, max: number): boolean {
  return jsonBytesBound(value) <= max || utf8Size(value) <= max;
}

export function checkId(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return `${field} is required`;
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.length > MAX_ID_CHARS) return `${field} must be at most ${MAX_ID_CHARS} characters`;
  if (!isIdText(value)) return `${field} may hold only letters, digits, '_' and '-'`;
  return undefined;
}

export function checkName(value: unknown, field: string, max = 100): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return `${field} is required`;
  if (charCount(value) > max) return `${field} must be at most ${max} characters`;
  return undefined;
}

export function checkOneOf(value: unknown, field: string, allowed: readonly string[]): string | undefined {
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  return `${field} must be one of ${allowed.join(', ')}`;
}

/** Optional URL fields (avatar, link, icon). */
export function checkUrl(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value.length > MAX_URL_CHARS) return `${field} must be at most ${MAX_URL_CHARS} characters`;
  try {
    new URL(value);
  } catch {
    return `${field} must be a valid URL`;
  }
  return undefined;
}

export function checkObject(value: unknown, field: string, maxBytes: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) return `${field} must be an object`;
  if (!fitsBytes(value, maxBytes)) return `${field} must be at most ${maxBytes} bytes serialised`;
  return undefined;
}

export function checkTags(value: unknown, field: string, maxTags?: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return `${field} must be an array of strings`;
  if (maxTags !== undefined && value.length > maxTags) return `${field} must hold at most ${maxTags} tags`;
  for (const tag of value) {
    if (typeof tag !== 'string') return `${field} must be an array of strings`;
    if (charCount(tag) > 100) return `each of ${field} must be at most 100 characters`;
  }
  return undefined;
}

/**
 * Integer UNIX seconds, or a string of digits (vendor request examples send strings): the seconds, or
 * undefined when absent (a caller that needs the field checks that itself), or the problem. No result
 * object on success: every record has a few of these.
 */
export function parseTimestamp(value: unknown, field: string): number | undefined | { problem: string } {
  if (value === undefined || value === null) return undefined;
  let seconds: number;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && /^\d{1,15}$/.test(value)) seconds = Number(value);
  else return { problem: `${field} must be integer UNIX seconds` };
  if (!Number.isInteger(seconds) || seconds < 0) return { problem: `${field} must be integer UNIX seconds` };
  if (seconds < MIN_SECONDS) {
    return { problem: `${field} must be 10-digit UNIX seconds; ${seconds} is no real time (leave the field out)` };
  }
  if (seconds > MAX_SECONDS) return { problem: `${field} looks like milliseconds; send UNIX seconds` };
  return seconds;
}
