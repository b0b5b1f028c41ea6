/**
 * Why a config file is not JSON, in words for its author: the first error jsonc-parser finds
 * (json/json-error.ts), with the token found there and the usual causes (single quotes, comments,
 * trailing commas) named. Runs only after JSON.parse failed.
 */
import { ParseErrorCode } from 'jsonc-parser';
import { firstJsonError, type JsonError } from '../json/json-error.js';

export interface JsonSyntaxProblem {
  /** Offset in the text of the first token that is wrong. */
  offset: number;
  reason: string;
}

/** `, found 'tru'` for a reason, or nothing at the end of the file (the reason says so). */
function found(text: string, at: number): string {
  if (at >= text.length) return '';
  if (text[at] === "'") return ', found a single quote: JSON takes double quotes';
  const word = /^[\w$.+-]+/.exec(text.slice(at, at + 40))?.[0] ?? text[at];
  return `, found '${JSON.stringify(word).slice(1, -1)}'`;
}

/** Before a closing bracket, a comma is the likely cause. */
function trailingComma(text: string, at: number): string | undefined {
  const c = text[at];
  if ((c === '}' || c === ']') && text.slice(0, at).trimEnd().endsWith(',')) {
    return `a trailing comma before '${c}' is not allowed in JSON`;
  }
  return undefined;
}

const AFTER_VALUE = {
  object: "expected ',' or '}' after property value",
  array: "expected ',' or ']' after a list element",
};

function reasonOf(text: string, e: JsonError): string {
  const at = e.offset;
  switch (e.code) {
    case ParseErrorCode.PropertyNameExpected:
      return trailingComma(text, at) ?? `expected a property name in double quotes${found(text, at)}`;
    case ParseErrorCode.ValueExpected:
      return trailingComma(text, at) ?? `expected a value${found(text, at)}`;
    case ParseErrorCode.InvalidSymbol:
      return `expected a value or a property name in double quotes${found(text, at)}`;
    case ParseErrorCode.InvalidNumberFormat:
    case ParseErrorCode.UnexpectedEndOfNumber:
      return `bad number${found(text, at)}`;
    case ParseErrorCode.ColonExpected:
      return "expected ':' after property name";
    case ParseErrorCode.CommaExpected:
      return AFTER_VALUE[e.inside ?? 'object'];
    case ParseErrorCode.CloseBraceExpected:
      return AFTER_VALUE.object;
    case ParseErrorCode.CloseBracketExpected:
      return AFTER_VALUE.array;
    case ParseErrorCode.EndOfFileExpected:
      return 'more text after the end of the JSON value';
    case ParseErrorCode.InvalidCommentToken:
    case ParseErrorCode.UnexpectedEndOfComment:
      // The config's own way to comment is a "//" key (schema.ts ignores it).
      return 'found a comment: JSON has none (a "//" key is ignored)';
    case ParseErrorCode.UnexpectedEndOfString:
      return /[\r\n]/.test(text[at + e.length] ?? '')
        ? 'a line break inside a string (write \\n)'
        : "unterminated string: no closing '\"'";
    case ParseErrorCode.InvalidUnicode:
    case ParseErrorCode.InvalidEscapeCharacter:
      return 'bad escape in a string (\\ must be followed by one of "\\/bfnrt or u and four hex digits)';
    case ParseErrorCode.InvalidCharacter:
      return 'a control character inside a string (write it escaped, such as \\t)';
    default:
      return 'not valid JSON';
  }
}

/** The first syntax error of `text`, or undefined if none is found. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const error = firstJsonError(text);
  if (error === undefined) return undefined;
  const reason = reasonOf(text, error);
  return {
    offset: error.offset,
    reason: error.offset >= text.length ? `unexpected end of the file: ${reason}` : reason,
  };
}
