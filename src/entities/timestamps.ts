/** Timestamps as exports write them (UNIX s/ms/us, numeric strings, ISO-8601) -> integer UNIX seconds. */

/** Numbers from here up are milliseconds (seconds stay below it until the year 5138). */
export const MILLISECONDS_FROM = 1e11;

/**
 * Instants before this one (1970-01-02T00:00:00Z, in UNIX seconds) mean "never", not a time: no real
 * chat record is that old, and exporters write "never" as 0, -1, the epoch in their own time zone
 * (Sendbird's `"1970-01-01 00:59:59+0100"`, 24 hours either side at most) or a zero date
 * (`0001-01-01T00:00:00Z`). The service wants 10-digit UNIX seconds: an optional field holding one
 * is left out, a required one (a message's sentAt) is an error.
 */
export const NEVER_BEFORE = 86_400;

/** Whether integer UNIX seconds stand for "never" (see NEVER_BEFORE). */
export function isNeverTime(seconds: number): boolean {
  return seconds < NEVER_BEFORE;
}

const NUMERIC = /^[+-]?\d+(?:\.\d+)?$/;
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * UNIX seconds from: seconds, milliseconds (> 1e11), microseconds (> 1e14), numeric strings
 * (Slack's "1452837318.000002" included), ISO-8601 (a time without a zone is taken as UTC, so
 * the result does not depend on the machine's zone). Fractions are floored. Undefined otherwise.
 */
export function toUnixSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return fromNumber(value);
  if (typeof value === 'string') {
    const text = value.trim();
    return NUMERIC.test(text) ? fromNumber(Number(text)) : fromIso(text);
  }
  if (value instanceof Date) return fromNumber(value.getTime() / 1000);
  return undefined;
}

function fromNumber(n: number): number | undefined {
  if (!Number.isFinite(n)) return undefined;
  const size = Math.abs(n);
  return Math.floor(size > 1e14 ? n / 1e6 : size > MILLISECONDS_FROM ? n / 1e3 : n);
}

function fromIso(text: string): number | undefined {
  const m = ISO_8601.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((s) => Number(s ?? 0));
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC reads years 0-99 as 1900-1999: Go's zero time 0001-01-01 would become 1901.
  if (year < 100) ms = new Date(ms).setUTCFullYear(year);
  const date = new Date(ms);
  // Date.UTC rolls Feb 30 over to March; a real date survives the round trip.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
  }
  return Math.floor(ms / 1000) - offsetMinutes * 60;
}
