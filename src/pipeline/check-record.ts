import type { MappedRecord, Problem } from '../entities/types.js';
import { validateRecord, type ExportIndex } from '../validate/index.js';

/**
 * Every check one record gets, in the order import and validate share: what mapping found, the
 * per-record rules, then the cross-record ones (which also enter the record's id in the index, so a
 * record acknowledged in an earlier run still counts for references and duplicates).
 */
export function checkRecord(record: MappedRecord, index: ExportIndex, nowSec: number): Problem[] {
  const own = validateRecord(record, nowSec);
  const cross = index.check(record);
  if (record.problems.length === 0 && cross.length === 0) return own;
  return [...record.problems, ...own, ...cross];
}

export const hasError = (problems: readonly Problem[]): boolean => problems.some((p) => p.severity === 'error');
