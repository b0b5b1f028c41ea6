/** The SourceItems a preset makes of the pieces it reads (sources/read-pieces.ts), numbered by the preset. */
import type { JsonObject, SourceItem, SourceProblem, SourceRecord } from '../../entities/types.js';
import type { ProblemPiece } from '../../sources/read-pieces.js';

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function recordItem(
  value: JsonObject,
  file: string,
  line: number,
  ordinal: number,
  skip?: string,
): SourceRecord {
  const item: SourceRecord = { kind: 'record', value, file, line, ordinal };
  if (skip !== undefined) item.skip = skip;
  return item;
}

/** A piece that is not a record: a slot (ordinal) when it stood for a value, else about the file. */
export function problemItem(piece: ProblemPiece, file: string, ordinal: number | undefined): SourceProblem {
  const item: SourceProblem = { kind: 'problem', file, line: piece.line, rule: piece.rule, message: piece.message };
  if (piece.fatal) item.fatalForFile = true;
  else if (piece.slot && ordinal !== undefined) item.ordinal = ordinal;
  return item;
}

/** A value of the wrong shape (a string where a message object belongs): one bad slot. */
export function shapeProblem(file: string, line: number, ordinal: number, message: string): SourceItem {
  return { kind: 'problem', file, line, ordinal, rule: 'input.not-object', message };
}
