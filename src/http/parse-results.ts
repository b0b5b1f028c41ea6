import {
  innerObjectEntries,
  keysAreUnique,
  memberNamed,
  objectEntries,
  type EntryRange,
} from '../json/object-entries.js';

/** The service's verdict on one record of a request. */
export interface RecordResult {
  success: boolean;
  code?: string;
  message?: string;
  /** On a success, the service's own id of the record when the answer gives one (messages: `data.id`). */
  serviceId?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A result entry: `{success, data}` or `{success: false, error: {code, message}}`. */
const isResult = (v: unknown): v is Obj => isObj(v) && typeof v.success === 'boolean';

/**
 * Reads the per-record results of a 200 answer's text, in both documented shapes: `{"data": {key:
 * result}}` and the vendor examples' `{"data": {"data": {key: result}}}`, where message results may be
 * keyed by the service's new message id instead of the muid (docs/api-contract.md "Responses"); then the muid
 * inside the result is used. Returns results by the ids that were sent; ids with no result are absent.
 */
export function parseRecordResults(
  text: string,
  sentIds: readonly string[],
  idField: string,
): Map<string, RecordResult> {
  // The answer's map, found once: both fast readings start from it.
  const ranges = innerObjectEntries(text, 'data');
  // Only messages get an id of the service's own beside the one sent.
  const withServiceId = idField === 'muid';
  const inOrder = ranges && resultsInOrder(text, ranges, sentIds, withServiceId);
  if (inOrder !== undefined) return inOrder;
  const results = new Map<string, RecordResult>();
  // The service lower-cases ids, so match without case as well.
  const byLower = new Map<string, string>();
  for (const id of sentIds) byLower.set(id.toLowerCase(), id);

  const entries =
    (ranges && resultEntries(text, ranges, sentIds, byLower)) ?? resultEntriesOf(parseJson(text), sentIds);

  for (const [key, entry] of entries) {
    let result = toResult(entry);
    if (result === undefined) continue;
    const id = matchId(key, entry as Obj, idField, byLower);
    if (id === undefined) continue;
    if (withServiceId && result.success) {
      // Keyed by the new id (the vendor's examples), or carrying it in `data.id`.
      const serviceId = entry instanceof FastSuccess ? serviceIdAt(text, entry.start, entry.end) : idInData(entry);
      const keyed = key.toLowerCase() === id.toLowerCase() ? undefined : key;
      result = { success: true, serviceId: serviceId ?? keyed };
    }
    results.set(id, result);
  }
  return results;
}

/** A success read from its first bytes, with where its text is, should its id be wanted. */
class FastSuccess {
  readonly success = true;
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
}

/** `data.id` of a parsed result (or `data.data.id`, as one vendor page nests it), as a string. */
function idInData(entry: unknown): string | undefined {
  let data = isObj(entry) ? entry.data : undefined;
  if (isObj(data) && data.id === undefined && isObj(data.data)) data = data.data;
  const id = isObj(data) ? data.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

const WS = '[ \\t\\r\\n]*';
const ID_FIRST = new RegExp(
  `\\{${WS}"success"${WS}:${WS}true${WS},${WS}"data"${WS}:${WS}\\{${WS}"id"${WS}:${WS}"?(\\d{1,30})"?${WS}[,}]`,
  'y',
);

/**
 * `data.id` of the result whose text is `text[start, end)`, found by the same structural scan as the
 * map (no parse of the echoed record); undefined when the answer has none.
 */
function serviceIdAt(text: string, start: number, end: number): string | undefined {
  // The usual answer puts `success`, then `data` with `id` first: read in place, no scan.
  ID_FIRST.lastIndex = start;
  const first = ID_FIRST.exec(text);
  if (first !== null && ID_FIRST.lastIndex <= end) return first[1];
  const result = objectEntries(text, start, end);
  const data = result && memberNamed(result, 'data');
  if (!data || !text.startsWith('{', data.start)) return undefined;
  const inner = objectEntries(text, data.start, data.end);
  const id = inner && memberNamed(inner, 'id');
  if (!id) {
    const deeper = inner && memberNamed(inner, 'data');
    return deeper ? idInData(parseJson(`{"data":${text.slice(deeper.start, deeper.end)}}`)) : undefined;
  }
  const value = text.slice(id.start, id.end);
  // Digits, quoted or not (examples show both), are the usual case: no parse.
  const digits = /^"?(\d{1,30})"?$/.exec(value);
  if (digits) return digits[1];
  return idInData({ data: { id: parseJson(value) } });
}

const SUCCESS: RecordResult = Object.freeze({ success: true });

/** One entry's verdict; undefined when the entry is not a result. */
function toResult(entry: unknown): RecordResult | undefined {
  if (!isResult(entry)) return undefined;
  if (entry.success) return SUCCESS;
  const error = isObj(entry.error) ? entry.error : {};
  return {
    success: false,
    code: typeof error.code === 'string' ? error.code : 'ERR_UNKNOWN',
    message: typeof error.message === 'string' ? error.message : 'the service refused the record',
  };
}

/**
 * A result that opens with `"success": true`: its echoed record is neither parsed nor checked, so a
 * success whose echo is malformed JSON still counts (the whole-text parse would find no results and
 * re-send the batch). Sticky: tested in place, no slice.
 */
const SUCCESS_AT = /\{[ \t\r\n]*"success"[ \t\r\n]*:[ \t\r\n]*true[ \t\r\n]*[,}]/y;

function isSuccessAt(text: string, at: number): boolean {
  SUCCESS_AT.lastIndex = at;
  return SUCCESS_AT.test(text);
}

/**
 * The usual answer, read with no lookup tables: `{"data": {...}}` with one result per sent id, under
 * that very id, in the order sent. Undefined for anything else, which the general path reads.
 */
function resultsInOrder(
  text: string,
  entries: readonly EntryRange[],
  sentIds: readonly string[],
  withServiceId: boolean,
): Map<string, RecordResult> | undefined {
  if (entries.length !== sentIds.length) return undefined;
  const results = new Map<string, RecordResult>();
  for (let i = 0; i < entries.length; i++) {
    const { key, start, end } = entries[i];
    if (key !== sentIds[i]) return undefined;
    const success = isSuccessAt(text, start);
    const result =
      success && withServiceId
        ? { success: true, serviceId: serviceIdAt(text, start, end) }
        : success
          ? SUCCESS
          : toResult(parseJson(text.slice(start, end)));
    if (result === undefined) return undefined;
    results.set(key, result);
  }
  return results;
}

/** The text as JSON, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** The result map's entries from the parsed answer: the reference for what `resultEntries` does fast. */
function resultEntriesOf(body: unknown, sentIds: readonly string[]): [string, unknown][] {
  let map: unknown = isObj(body) ? body.data : undefined;
  if (isObj(map) && isObj(map.data) && !isResult(map.data) && !sentIds.includes('data')) map = map.data;
  return isObj(map) ? Object.entries(map) : [];
}

/**
 * The same entries with each result parsed on its own (see object-entries.ts for why); undefined
 * whenever the text is not plainly one of the two shapes, and the caller parses it whole.
 */
function resultEntries(
  text: string,
  ranges: readonly EntryRange[],
  sentIds: readonly string[],
  byLower: ReadonlyMap<string, string>,
): [string, unknown][] | undefined {
  let map = ranges;
  if (!keysAreUnique(map)) return undefined;
  const inner = memberNamed(map, 'data');
  if (inner && !sentIds.includes('data') && text.startsWith('{', inner.start)) {
    const nested = objectEntries(text, inner.start, inner.end);
    if (!nested || !keysAreUnique(nested)) return undefined;
    const success = memberNamed(nested, 'success');
    const isOneResult = success !== undefined && /^(true|false)$/.test(text.slice(success.start, success.end));
    if (!isOneResult) map = nested;
  }
  try {
    // A success under a sent id needs nothing but its verdict: its echoed record is not parsed.
    return map.map((entry) => [
      entry.key,
      byLower.has(entry.key.toLowerCase()) && isSuccessAt(text, entry.start)
        ? new FastSuccess(entry.start, entry.end)
        : (JSON.parse(text.slice(entry.start, entry.end)) as unknown),
    ]);
  } catch {
    return undefined;
  }
}

function matchId(key: string, entry: Obj, idField: string, byLower: Map<string, string>): string | undefined {
  const direct = byLower.get(key.toLowerCase());
  if (direct !== undefined) return direct;
  for (const holder of [entry.data, entry, entry.error]) {
    if (!isObj(holder)) continue;
    const inner = holder[idField];
    if (typeof inner === 'string') {
      const found = byLower.get(inner.toLowerCase());
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The `{"error": {"code", "message"}}` of a failed request, if it has one. */
export function parseRequestError(text: string): { code: string; message: string } | undefined {
  const body = parseJson(text);
  if (!isObj(body) || !isObj(body.error)) return undefined;
  const { code, message } = body.error;
  return { code: typeof code === 'string' ? code : 'ERR_UNKNOWN', message: typeof message === 'string' ? message : '' };
}
