/** Problems every reader reports the same way, so rule codes and wording stay in one place. */
import type { SourceProblem } from '../entities/types.js';
import type { CorruptGzipError } from './read-blocks.js';

export const UTF8_MESSAGE = 'line is not valid UTF-8 (re-export the file as UTF-8)';

export function utf8Problem(file: string, line: number, ordinal?: number): SourceProblem {
  const problem: SourceProblem = {
    kind: 'problem',
    file,
    line,
    rule: 'input.utf8',
    message: UTF8_MESSAGE,
  };
  if (ordinal !== undefined) problem.ordinal = ordinal;
  return problem;
}

/** An empty file holds no record to lose: a warning in validate and import, never a reject. */
export const EMPTY_FILE_RULE = 'input.empty-file';

export function emptyFileProblem(file: string): SourceProblem {
  // The code written out (not EMPTY_FILE_RULE): test/validate.e2e.test.mjs finds the readers' codes so.
  return { kind: 'problem', file, line: 1, rule: 'input.empty-file', message: 'file is empty' };
}

export function gzipProblem(file: string, error: CorruptGzipError): SourceProblem {
  return {
    kind: 'problem',
    file,
    line: error.line,
    rule: 'input.gzip',
    message: `${error.message}; nothing from line ${error.line} on could be read`,
    fatalForFile: true,
  };
}

/** Lines a break cost, for its message: "line 7", "lines 14-230 (217 lines)". */
export function lineSpan(from: number, to: number): string {
  return to <= from ? `line ${from}` : `lines ${from}-${to} (${to - from + 1} lines)`;
}

/** For messages: "a string", "an array", "null". */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** True when text[start, end) holds only JSON whitespace (the `\r` of a CRLF file included). */
export function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}
