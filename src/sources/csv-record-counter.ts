/**
 * Counts the rows csv-parse gives a CSV file (with the options of csv-parse-job.ts) that csv-rows.ts
 * makes record slots of: rows that are not blank, less the header. A line break inside a quoted
 * field is part of its row; a row whose only field is whitespace (as `String.prototype.trim` sees
 * it) is blank. Rows are found with `indexOf` (memchr) for newlines and quotes; only a row's first
 * bytes, while they could still make it blank, are looked at one by one.
 */

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** Undecided: nothing but whitespace yet. At a row's start (where a quote opens a quoted field). */
const ROW_START = 0;
/** Undecided: whitespace seen, so a quote now would not open a field. */
const LEADING_SPACE = 1;
/** Undecided: inside a quoted first field holding only whitespace so far. */
const BLANK_QUOTED = 2;
/** Undecided: a quote inside BLANK_QUOTED; the next byte says whether it closes the field. */
const BLANK_QUOTE_SEEN = 3;
/** Undecided: the quoted field closed and a CR followed; only an LF keeps the row blank. */
const BLANK_CLOSED = 4;
/** A record row, outside quotes. */
const UNQUOTED = 5;
/** A record row, inside a quoted field. */
const QUOTED = 6;
/** A record row: a quoted field's quote was a chunk's last byte; the next byte says if it was doubled. */
const QUOTE_SEEN = 7;
/** Undecided: inside a multi-byte character, which may be whitespace (U+00A0, U+3000, a BOM). */
const MULTIBYTE = 8;

/** What `trim()` removes beyond ASCII: a row of only these is blank to csv-rows.ts. */
function isUnicodeSpace(cp: number): boolean {
  return (
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  );
}

const isAsciiSpace = (b: number) => b === 0x20 || b === 0x09 || b === CR || b === 0x0b || b === 0x0c;

export class CsvRecordCounter {
  private rows = 0;
  private state = ROW_START;
  /** The last byte of the previous chunk: whether a quote at a chunk's start opens a field. */
  private lastByte = LF;
  private started = false;
  /** MULTIBYTE: the code point so far, the bytes still to come, and whether it is inside quotes. */
  private codePoint = 0;
  private need = 0;
  private quotedSpace = false;

  feed(chunk: Buffer): void {
    let at = 0;
    if (!this.started) {
      // csv-parse drops a BOM (its `bom` option): a quote after it still opens the first field.
      this.started = true;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) at = 3;
    }
    const length = chunk.length;
    // The next newline and quote at or after `at` (-1: none left in the chunk; -2: not looked for yet).
    let lf = -2;
    let quote = -2;
    while (at < length) {
      const state = this.state;
      if (state === UNQUOTED) {
        if (lf !== -1 && lf < at) lf = chunk.indexOf(LF, at);
        if (quote !== -1 && quote < at) quote = chunk.indexOf(QUOTE, at);
        if (quote >= 0 && (lf < 0 || quote < lf)) {
          // A quote opens a field only at the field's start; elsewhere csv-parse refuses the row,
          // which still takes one slot, so it is read on as text.
          const before = quote > 0 ? chunk[quote - 1] : this.lastByte;
          if (before === COMMA) this.state = QUOTED;
          at = quote + 1;
        } else if (lf >= 0) {
          this.rows++;
          this.state = ROW_START;
          at = lf + 1;
        } else {
          at = length;
        }
      } else if (state === QUOTED) {
        const close = chunk.indexOf(QUOTE, at);
        if (close < 0) at = length;
        else if (close + 1 === length) {
          this.state = QUOTE_SEEN;
          at = length;
        } else {
          // `""` is a quote inside the field; any other byte after a quote ends the field.
          if (chunk[close + 1] !== QUOTE) this.state = UNQUOTED;
          at = chunk[close + 1] === QUOTE ? close + 2 : close + 1;
        }
      } else if (state === QUOTE_SEEN) {
        // The quote before the chunk was doubled (still inside the field), or it ended the field.
        if (chunk[at] === QUOTE) {
          this.state = QUOTED;
          at++;
        } else this.state = UNQUOTED;
      } else {
        const b = chunk[at++];
        // Most rows start with a byte that makes them a record: no need to ask what it could be.
        if (state === ROW_START && b > 0x22 && b < 0x80 && b !== COMMA) this.state = UNQUOTED;
        else this.undecided(b);
      }
    }
    if (length > 0) this.lastByte = chunk[length - 1];
  }

  /** The record slots: rows that are not blank, less the header. */
  end(): number {
    const state = this.state;
    // A last row without a newline; a quote still open is a row csv-parse refuses, a slot too.
    const last = state <= LEADING_SPACE || state === BLANK_QUOTE_SEEN || state === BLANK_CLOSED ? 0 : 1;
    return Math.max(0, this.rows + last - 1);
  }

  /** One byte of a row that is blank so far. */
  private undecided(b: number): void {
    switch (this.state) {
      case ROW_START:
      case LEADING_SPACE:
        if (b === LF) this.state = ROW_START;
        else if (isAsciiSpace(b)) this.state = LEADING_SPACE;
        else if (b === QUOTE && this.state === ROW_START) this.state = BLANK_QUOTED;
        else if (b >= 0x80) this.startCharacter(b, false);
        else this.state = UNQUOTED;
        return;
      case BLANK_QUOTED:
        if (b === QUOTE) this.state = BLANK_QUOTE_SEEN;
        else if (b >= 0x80) this.startCharacter(b, true);
        else if (!isAsciiSpace(b) && b !== LF) this.state = QUOTED;
        return;
      case BLANK_QUOTE_SEEN:
        // `""` is a quote character: the row holds something. A newline ends a blank row.
        if (b === LF) this.state = ROW_START;
        else if (b === CR) this.state = BLANK_CLOSED;
        else this.state = b === QUOTE ? QUOTED : UNQUOTED;
        return;
      case BLANK_CLOSED:
        this.state = b === LF ? ROW_START : UNQUOTED;
        return;
      default:
        this.continueCharacter(b);
    }
  }

  private startCharacter(b: number, quoted: boolean): void {
    this.quotedSpace = quoted;
    const need = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (need === 0) {
      this.state = quoted ? QUOTED : UNQUOTED; // not UTF-8: the reader makes the row an input.utf8 problem
      return;
    }
    this.need = need;
    this.codePoint = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    this.state = MULTIBYTE;
  }

  private continueCharacter(b: number): void {
    const quoted = this.quotedSpace;
    if ((b & 0xc0) !== 0x80) {
      this.need = 0;
      this.state = quoted ? QUOTED : UNQUOTED;
      return;
    }
    this.codePoint = (this.codePoint << 6) | (b & 0x3f);
    if (--this.need > 0) return;
    if (isUnicodeSpace(this.codePoint)) this.state = quoted ? BLANK_QUOTED : LEADING_SPACE;
    else this.state = quoted ? QUOTED : UNQUOTED;
  }
}
