/** Timestamps as exports write them (UNIX s/ms/us, numeric strings, ISO-8601) -> integer UNIX seconds. */

/** Numbers from here up are milliseconds (seconds stay below it until the year 5138). */
export const MILLISECONDS_FROM = 1e11;

const NUMERIC = /^[+-]?\d+(?:\.\d+)?$/;
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

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
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
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
