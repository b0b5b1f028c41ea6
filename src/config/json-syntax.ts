/**
 * Where a JSON text stops being JSON, and why, for a config file's author. JSON.parse's own message
 * often has no position ("Unexpected token 'x', ... is not valid JSON") and its wording changes
 * between Node versions, so a failed parse is scanned again here. Runs only after JSON.parse failed.
 */

export interface JsonSyntaxProblem {
  /** Offset in the text of the first character that is wrong. */
  offset: number;
  reason: string;
}

class Stop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD = /[\w$.+-]+/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The first syntax error of `text`, or undefined if it is JSON after all. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  let i = 0;
  const stop = (reason: string, at = i): never => {
    throw new Stop(at, at >= text.length ? `unexpected end of the file: ${reason}` : reason);
  };
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  /** `, found 'tru'` for a reason, or nothing at the end of the file (stop says so). */
  const found = (at: number): string => {
    if (at >= text.length) return '';
    if (text[at] === "'") return ', found a single quote: JSON takes double quotes';
    // The config's own way to comment is a "//" key (schema.ts ignores it).
    if (/^\/[/*]/.test(text.slice(at, at + 2))) return ', found a comment: JSON has none (a "//" key is ignored)';
    WORD.lastIndex = at;
    const word = WORD.exec(text)?.[0] ?? text[at];
    return `, found '${JSON.stringify(word).slice(1, -1)}'`;
  };

  const string = () => {
    const start = i++;
    for (;;) {
      if (i >= text.length) stop("unterminated string: no closing '\"'", start);
      const c = text[i];
      if (c === '"') break;
      if (c === '\n') stop('a line break inside a string (write \\n)');
      if (c < ' ') stop(`control character U+${c.charCodeAt(0).toString(16).padStart(4, '0')} inside a string`);
      if (c === '\\') {
        const next = text[i + 1];
        const ok = ESCAPES.has(next) || (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)));
        if (!ok) stop(`bad escape '\\${next ?? ''}' in a string`);
        i += next === 'u' ? 6 : 2;
      } else {
        i++;
      }
    }
    i++;
  };

  const value = (after: string) => {
    skipSpace();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i) && !/[\w$]/.test(text[i + word.length] ?? '')) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text)?.[0];
    if (number !== undefined && !/[\w.+-]/.test(text[i + number.length] ?? '')) {
      i += number.length;
      return;
    }
    const comma = (c === '}' || c === ']') && text.slice(0, i).trimEnd().endsWith(',');
    stop(comma ? `a trailing comma before '${c}' is not allowed in JSON` : `expected a value ${after}${found(i)}`);
  };

  const object = () => {
    i++;
    skipSpace();
    if (text[i] === '}') return void i++;
    for (;;) {
      skipSpace();
      if (text[i] === '}') stop("a trailing comma before '}' is not allowed in JSON");
      if (text[i] !== '"') stop(`expected a property name in double quotes${found(i)}`);
      string();
      skipSpace();
      if (text[i] !== ':') stop("expected ':' after property name");
      i++;
      value("after ':'");
      skipSpace();
      if (text[i] === '}') return void i++;
      if (text[i] !== ',') stop("expected ',' or '}' after property value");
      i++;
    }
  };

  const array = () => {
    i++;
    skipSpace();
    if (text[i] === ']') return void i++;
    for (;;) {
      value('in the list');
      skipSpace();
      if (text[i] === ']') return void i++;
      if (text[i] !== ',') stop("expected ',' or ']' after a list element");
      i++;
    }
  };

  try {
    value('at the start');
    skipSpace();
    if (i < text.length) stop('more text after the end of the JSON value');
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return { offset: err.offset, reason: err.reason };
    throw err;
  }
}

/** 1-based line and column of an offset. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
