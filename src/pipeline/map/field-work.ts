/**
 * Which of the mapper's per-field steps a record needs, found while its keys are read once anyway.
 * Why: most records of a JSON export need none of them, and looking up each step's fields by name
 * (a dozen absent names a message, each a miss through the prototype chain) cost more than the steps.
 */

import { MILLISECONDS_FROM, NEVER_BEFORE } from '../../entities/timestamps.js';

/** A field whose value may arrive as JSON text (CSV cells). */
export const STRUCTURED = 1;
/** A field whose value may arrive as "true"/"1" text. */
export const BOOLEAN = 2;
/** A timestamp field, sent as integer UNIX seconds. */
export const TIMESTAMP = 4;
/** An id field, sent as a string. */
export const NUMERIC_ID = 8;
/** Every step: for records with renames or transient heads, whose values may land on any field. */
export const ALL_STEPS = STRUCTURED | BOOLEAN | TIMESTAMP | NUMERIC_ID;

export interface FieldLists {
  structuredFields: readonly string[];
  booleanFields: readonly string[];
  timestampFields: readonly string[];
  idFields: readonly string[];
}

/** Each contract field of an entity with the steps that may apply to it (0: none). */
export function fieldKinds(known: readonly string[], lists: FieldLists): Map<string, number> {
  const kinds = new Map<string, number>(known.map((field) => [field, 0]));
  const mark = (fields: readonly string[], kind: number) => {
    // Only contract fields: another name keeps a record off the fast path, as an unknown field should.
    for (const field of fields) if (kinds.has(field)) kinds.set(field, kinds.get(field)! | kind);
  };
  mark(lists.structuredFields, STRUCTURED);
  mark(lists.booleanFields, BOOLEAN);
  mark(lists.timestampFields, TIMESTAMP);
  mark(lists.idFields, NUMERIC_ID);
  return kinds;
}

/** A timestamp the mapper leaves as it is: absent, or integer seconds from NEVER_BEFORE to MILLISECONDS_FROM. */
export function isUnixSeconds(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  return typeof value === 'number' && Number.isInteger(value) && value >= NEVER_BEFORE && value < MILLISECONDS_FROM;
}

/** Of the steps `kinds` allows, those this value needs: the ones that would change it. */
export function stepsFor(kinds: number, value: unknown): number {
  let steps = 0;
  if ((kinds & (STRUCTURED | BOOLEAN)) !== 0 && typeof value === 'string') steps |= kinds & (STRUCTURED | BOOLEAN);
  if ((kinds & TIMESTAMP) !== 0 && !isUnixSeconds(value)) steps |= TIMESTAMP;
  if ((kinds & NUMERIC_ID) !== 0 && typeof value === 'number') steps |= NUMERIC_ID;
  return steps;
}
