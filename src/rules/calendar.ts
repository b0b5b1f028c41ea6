/** Date and time-zone checks for interactive dateTime elements. */

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
// Probing Intl for a zone name costs a DateTimeFormat; remember answers, but not without bound.
const PROBE_CACHE_MAX = 1000;

let knownZones: ReadonlySet<string> | undefined;
const probed = new Map<string, boolean>();

/** A real calendar date written YYYY-MM-DD (so 2023-02-29 is not one). */
export function isCalendarDate(s: string): boolean {
  const m = DATE_SHAPE.exec(s);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= days;
}

/**
 * An IANA zone name. The canonical list omits `UTC` and links such as `US/Eastern` that clients
 * resolve, so a name off the list is tried on `Intl.DateTimeFormat` too.
 */
export function isTimeZone(name: string): boolean {
  knownZones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  if (knownZones.has(name)) return true;
  const cached = probed.get(name);
  if (cached !== undefined) return cached;
  let ok: boolean;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    ok = name !== '';
  } catch {
    ok = false;
  }
  if (probed.size < PROBE_CACHE_MAX) probed.set(name, ok);
  return ok;
}
