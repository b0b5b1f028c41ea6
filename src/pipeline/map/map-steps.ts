/** The mapper's steps that need no state of their own (map.ts keeps the per-file state). */
import type { JsonObject, Problem } from '../../entities/types.js';
import { isPlainObject } from './object-paths.js';

export function dropTransient(
  payload: JsonObject,
  heads: ReadonlySet<string>,
  silent: ReadonlySet<string>,
  problems: Problem[],
  warnUnknown: (field: string, problems: Problem[]) => void,
): JsonObject {
  let found = false;
  for (const key in payload) {
    if (!heads.has(key)) continue;
    found = true;
    const value = payload[key];
    const leftOver = value !== undefined && !(isPlainObject(value) && Object.keys(value).length === 0);
    if (leftOver && !silent.has(key)) warnUnknown(key, problems);
  }
  if (!found) return payload;
  // Rebuilt rather than `delete`d: keeps the object in V8's fast mode for JSON.stringify.
  const clean: JsonObject = {};
  for (const key in payload) if (!heads.has(key)) clean[key] = payload[key];
  return clean;
}

/** The parsed value, or the text itself with a field.json error: validation then names the field. */
export function parseJsonText(text: string, field: string, problems: Problem[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    problems.push({
      rule: 'field.json',
      severity: 'error',
      field,
      message: `${field} is not valid JSON: ${(error as Error).message}`,
    });
    return text;
  }
}

export function fillIdFromKey(payload: JsonObject, idField: string, key: string, problems: Problem[]): void {
  if (idField !== 'memberId') {
    const inner = payload[idField];
    if (inner === undefined) payload[idField] = key;
    else if (String(inner) !== key) {
      // The request body is keyed by the id inside; a different key means the export disagrees with itself.
      problems.push({
        rule: 'id.mismatch',
        severity: 'error',
        field: idField,
        message: `${idField} ${JSON.stringify(inner)} differs from its key ${JSON.stringify(key)} in the file`,
      });
    }
    return;
  }
  // "<guid>_member_<uid>": only split when the separator is unambiguous.
  const at = key.indexOf('_member_');
  if (at <= 0 || key.indexOf('_member_', at + 1) >= 0) return;
  if (payload.guid === undefined) payload.guid = key.slice(0, at);
  if (payload.uid === undefined) payload.uid = key.slice(at + '_member_'.length);
}

/** A soft-delete marker is set unless it is empty, zero or false. */
export function isDeletionMark(value: unknown): boolean {
  return (
    value !== undefined &&
    value !== null &&
    value !== '' &&
    value !== 0 &&
    value !== false &&
    value !== '0' &&
    value !== 'false'
  );
}

export function conflict(field: string, problems: Problem[]): void {
  problems.push({
    rule: 'field.conflict',
    severity: 'error',
    field,
    message: `${field} cannot be set: a part of its path already holds a value that is not an object`,
  });
}

/** An optional time that says "never" (entities/timestamps.ts): left out of what is sent, with this warning. */
export function neverProblem(field: string, value: unknown): Problem {
  return {
    rule: 'timestamp.never',
    severity: 'warning',
    field,
    message: `${field} ${JSON.stringify(value)} means "never" (before 1970-01-02): it is left out of what is sent`,
  };
}
