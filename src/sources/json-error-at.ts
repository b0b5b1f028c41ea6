/**
 * Where JSON text that JSON.parse refused goes wrong, as line and column, for the message of an
 * `input.json-syntax` problem. JSON.parse names a position for some errors only ("Unexpected token
 * ','" has none), and only within the text it was given, so a small walker of the JSON grammar finds
 * the first character that cannot belong to a valid document. It runs on the error path only.
 */

/** Where text goes wrong: 1-based, counted from `line`/`column` (where the text starts in its file). */
export interface JsonErrorPlace {
  line: number;
  column: number;
}

export function jsonErrorPlace(text: string, line = 1, column = 1): JsonErrorPlace {
  const at = jsonErrorOffset(text);
  let lines = 0;
  let lastNewline = -1;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < at; nl = text.indexOf('\n', nl + 1)) {
    lines++;
    lastNewline = nl;
  }
  return { line: line + lines, column: lines === 0 ? column + at : at - lastNewline };
}

/** JSON.parse's reason without its position, which counts from the start of the text, not the file. */
export function jsonErrorReason(error: Error): string {
  return error.message.replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, '');
}

/** The offset of the first character that cannot be part of a JSON document (text.length: it ends too soon). */
export function jsonErrorOffset(text: string): number {
  const walker = new Walker(text);
  try {
    walker.value();
    walker.space();
    return walker.i;
  } catch (error) {
    if (error instanceof RangeError) return 0; // nested past the stack: the record's start will do
    return walker.i;
  }
}

const BAD = new Error('bad JSON');
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Walker {
  i = 0;

  constructor(private readonly s: string) {}

  space(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  value(): void {
    this.space();
    const c = this.s[this.i];
    if (c === '{') this.container('}', true);
    else if (c === '[') this.container(']', false);
    else if (c === '"') this.string();
    else if (c === 't') this.word('true');
    else if (c === 'f') this.word('false');
    else if (c === 'n') this.word('null');
    else this.number();
  }

  private container(close: string, object: boolean): void {
    this.i++;
    this.space();
    if (this.s[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      if (object) {
        this.space();
        if (this.s[this.i] !== '"') throw BAD;
        this.string();
        this.space();
        if (this.s[this.i] !== ':') throw BAD;
        this.i++;
      }
      this.value();
      this.space();
      const c = this.s[this.i];
      if (c === close) {
        this.i++;
        return;
      }
      if (c !== ',') throw BAD;
      this.i++;
    }
  }

  private string(): void {
    const s = this.s;
    for (this.i++; this.i < s.length; this.i++) {
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) throw BAD;
      if (c !== 0x5c) continue;
      this.i++;
      const e = s[this.i];
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          this.i++;
          if (!/[0-9a-fA-F]/.test(s[this.i] ?? '')) throw BAD;
        }
      } else if (e === undefined || !'"\\/bfnrt'.includes(e)) {
        throw BAD;
      }
    }
    throw BAD;
  }

  private word(word: string): void {
    for (let k = 0; k < word.length; k++, this.i++) if (this.s[this.i] !== word[k]) throw BAD;
  }

  private number(): void {
    NUMBER.lastIndex = this.i;
    const match = NUMBER.exec(this.s);
    if (match === null) throw BAD;
    this.i += match[0].length;
  }
}
