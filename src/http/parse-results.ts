/** The service's verdict on one record of a request. */
export interface RecordResult {
  success: boolean;
  code?: string;
  message?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A result entry: `{success, data}` or `{success: false, error: {code, message}}`. */
const isResult = (v: unknown): v is Obj => isObj(v) && typeof v.success === 'boolean';

/**
 * Reads the per-record results of a 200 answer, in both documented shapes: `{"data": {key: result}}`
 * and the vendor examples' `{"data": {"data": {key: result}}}`, where message results may be keyed by
 * the service's new message id instead of the muid (import-api.md "Responses"); then the muid inside
 * the result is used. Returns results by the ids that were sent; ids with no result are absent.
 */
export function parseRecordResults(body: unknown, sentIds: readonly string[], idField: string): Map<string, RecordResult> {
  const results = new Map<string, RecordResult>();
  let map: unknown = isObj(body) ? body.data : undefined;
  if (isObj(map) && isObj(map.data) && !isResult(map.data) && !sentIds.includes('data')) map = map.data;
  if (!isObj(map)) return results;

  // The service lower-cases ids, so match without case as well.
  const byLower = new Map<string, string>();
  for (const id of sentIds) byLower.set(id.toLowerCase(), id);

  for (const [key, entry] of Object.entries(map)) {
    if (!isResult(entry)) continue;
    const id = matchId(key, entry, idField, byLower);
    if (id === undefined) continue;
    if (entry.success) {
      results.set(id, { success: true });
    } else {
      const error = isObj(entry.error) ? entry.error : {};
      results.set(id, {
        success: false,
        code: typeof error.code === 'string' ? error.code : 'ERR_UNKNOWN',
        message: typeof error.message === 'string' ? error.message : 'the service refused the record',
      });
    }
  }
  return results;
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
export function parseRequestError(body: unknown): { code: string; message: string } | undefined {
  if (!isObj(body) || !isObj(body.error)) return undefined;
  const { code, message } = body.error;
  return { code: typeof code === 'string' ? code : 'ERR_UNKNOWN', message: typeof message === 'string' ? message : '' };
}
