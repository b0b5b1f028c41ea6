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

export function emptyFileProblem(file: string): SourceProblem {
  return { kind: 'problem', file, line: 1, rule: 'input.empty-file', message: 'file is empty' };
}

export function gzipProblem(file: string, error: CorruptGzipError): SourceProblem {
  return {
    kind: 'problem',
    file,
    line: error.line,
    rule: 'input.gzip',
    message: `${error.message}; the rest of the file is not read`,
    fatalForFile: true,
  };
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
