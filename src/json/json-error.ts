/**
 * Where a text that JSON.parse refused goes wrong, for messages that name a line and column. JSON.parse
 * names a position for some errors only, counts it from the start of the text it was given (a record,
 * not its file) and words it differently from one Node version to the next, so jsonc-parser, strict
 * (no comments, no trailing commas), finds the first error. It runs on the error path only.
 */
import { type ParseErrorCode, visit } from 'jsonc-parser';

/** The first error of a text: the token that cannot belong to a JSON document. */
export interface JsonError {
  code: ParseErrorCode;
  /** Offset of that token (text.length: the text ends too soon). */
  offset: number;
  /** Its length in the text (0 at the end). */
  length: number;
  /** The innermost object or array still open where it is. */
  inside: 'object' | 'array' | undefined;
}

/** Thrown out of jsonc-parser's visitor to stop at the first error: the rest would be noise. */
class Found {
  constructor(readonly error: JsonError) {}
}

const STRICT = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/** The first error of `text`, or undefined where jsonc-parser finds none (nested past the stack). */
export function firstJsonError(text: string): JsonError | undefined {
  const open: ('object' | 'array')[] = [];
  try {
    visit(
      text,
      {
        onObjectBegin: () => {
          open.push('object');
        },
        onArrayBegin: () => {
          open.push('array');
        },
        onObjectEnd: () => {
          open.pop();
        },
        onArrayEnd: () => {
          open.pop();
        },
        onError: (code, offset, length) => {
          throw new Found({ code, offset, length, inside: open[open.length - 1] });
        },
      },
      STRICT,
    );
  } catch (error) {
    if (error instanceof Found) return error.error;
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return undefined;
}

/** 1-based line and column of `offset`, counted from `line`/`column` (where the text starts in its file). */
export function lineColumnAt(text: string, offset: number, line = 1, column = 1): { line: number; column: number } {
  let lines = 0;
  let lastNewline = -1;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    lines++;
    lastNewline = nl;
  }
  return { line: line + lines, column: lines === 0 ? column + offset : offset - lastNewline };
}

/** Where a record's text goes wrong in its file; its start when no error is found. */
export function jsonErrorPlace(text: string, line = 1, column = 1): { line: number; column: number } {
  return lineColumnAt(text, firstJsonError(text)?.offset ?? 0, line, column);
}

/** JSON.parse's reason without its position, which counts from the start of the text, not the file. */
export function jsonErrorReason(error: Error): string {
  return error.message.replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, '');
}
