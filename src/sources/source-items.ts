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

/**
 * A file in another encoding than UTF-8, as its first block shows (a UTF-16 byte-order mark, or bytes
 * that are not UTF-8, and no UTF-8 character of more than one byte): one problem for the whole file,
 * read no further, so no record of it is sent half-decoded. A file that is UTF-8 elsewhere has damaged
 * lines, not another encoding: `input.utf8` on each bad line instead.
 */
export function encodingProblem(file: string, bytes: Buffer, badLines: boolean): SourceProblem | undefined {
  const bom = (a: number, b: number) => bytes[0] === a && bytes[1] === b;
  const looks = bom(0xff, 0xfe)
    ? 'UTF-16LE (it starts with its byte-order mark)'
    : bom(0xfe, 0xff)
      ? 'UTF-16BE (it starts with its byte-order mark)'
      : badLines && !hasUtf8Character(bytes)
        ? 'Latin-1 / Windows-1252 (it holds bytes that are not UTF-8, such as accented letters)'
        : undefined;
  if (looks === undefined) return undefined;
  const from = looks.startsWith('UTF-16') ? 'UTF-16' : 'WINDOWS-1252';
  const name = file.split('/').pop()!;
  return {
    kind: 'problem',
    file,
    line: 1,
    rule: 'input.encoding',
    message:
      `file is not UTF-8: it looks like ${looks}. Convert it (iconv -f ${from} -t UTF-8 '${name}' > ` +
      `'${name}.utf8', then put the converted file in its place); nothing in the file could be read`,
    fatalForFile: true,
  };
}

/** Whether the bytes hold one well-formed UTF-8 character of two to four bytes. */
function hasUtf8Character(bytes: Buffer): boolean {
  const continuation = (at: number) => at < bytes.length && (bytes[at] & 0xc0) === 0x80;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b < 0xc2 || b > 0xf4) continue;
    const length = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    let ok = true;
    for (let k = 1; k < length && ok; k++) ok = continuation(i + k);
    if (ok) return true;
  }
  return false;
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
