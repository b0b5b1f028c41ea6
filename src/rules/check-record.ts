import type { MappedRecord, Problem } from '../entities/types.js';
import { validateRecord, type ExportIndex } from './index.js';

/**
 * A record's problems before any other record is looked at: what mapping found, then the per-record
 * rules. validate's worker thread stops here; the cross-record checks follow in `withCross`.
 */
export function ownProblems(record: MappedRecord, nowSec: number): Problem[] {
  const rules = validateRecord(record, nowSec);
  return record.problems.length === 0 ? rules : [...record.problems, ...rules];
}

/** Own problems, then the cross-record ones: the order every report shares. */
export function withCross(own: Problem[], cross: Problem[]): Problem[] {
  if (cross.length === 0) return own;
  return own.length === 0 ? cross : [...own, ...cross];
}

/**
 * Every check one record gets, in the order import and validate share (the cross-record ones also
 * enter the record's id in the index, so a record acknowledged in an earlier run still counts for
 * references and duplicates).
 */
export function checkRecord(record: MappedRecord, index: ExportIndex, nowSec: number): Problem[] {
  return withCross(ownProblems(record, nowSec), index.check(record));
}

export const hasError = (problems: readonly Problem[]): boolean => problems.some((p) => p.severity === 'error');
