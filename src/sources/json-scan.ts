/**
 * The one JSON streamer: walks a document fed as text, piece by piece, and cuts out the values its
 * visitor asks for, each as text with the lines it spans, for JSON.parse. The visitor decides per
 * value from its path: walk into it (a container), take it, or skip it. So a 2 GB
 * `[{...}, {...}]` costs the memory of one record, nested layouts (Telegram's
 * `chats.list[i].messages[j]`) stream as well as flat arrays, and another entity's part of a file
 * is passed over without being kept. The scanner checks only the structure it walks; a value it
 * cuts out is checked by JSON.parse, so the reader decides what one bad value costs.
 *
 * Why not stream-json: its tokens carry no positions, and tokenizing plus assembling each record in
 * JS costs more than finding its ends here and handing its text to JSON.parse (reading the 100k
 * bench messages: 436 -> 350 ms of CPU, medians of 15 interleaved runs on a busy machine).
 */
export type JsonPath = ReadonlyArray<string | number>;

/** What the visitor wants of a value: walk into it (containers; a scalar is taken), take it, skip it. */
export const WALK = 0;
export const TAKE = 1;
export const SKIP = 2;
export type Decision = typeof WALK | typeof TAKE | typeof SKIP;

export interface JsonScanVisitor {
  /**
   * A value starts at `path` (the keys and indexes leading to it) on `line`. The path is the
   * scanner's own array, changed as it goes on: copy it to keep it.
   */
  decide(path: JsonPath, container: boolean, line: number): Decision;
  /**
   * A taken value's JSON text, from its first line to its last; `column` (1-based, in characters) is
   * where it starts on its first line. `path` as for `decide`.
   */
  take(path: JsonPath, text: string, line: number, endLine: number, column: number): void;
}

/** The document's structure is broken where the scanner walks: the rest cannot be read. */
export class JsonScanError extends Error {
  constructor(
    readonly line: number,
    /** 1-based, in characters (a minified file is one long line); 0 with `atEnd`. */
    readonly column: number,
    message: string,
    /** The input ended before the document did, inside no value: nothing is left unread. */
    readonly atEnd = false,
  ) {
    super(message);
  }
}

/** Beyond this a value is a missing bracket or quote, not data: stop instead of holding the file. */
const MAX_VALUE_CHARS = 16 * 1024 * 1024;

const KEY = 0;
const COLON = 1;
const VALUE = 2;
const NEXT = 3;

/** A container being walked: what it waits for next, and its current key or index. */
interface Frame {
  array: boolean;
  index: number;
  want: typeof KEY | typeof COLON | typeof VALUE | typeof NEXT;
  key: string;
}

export interface JsonScanOptions {
  /**
   * Read a sequence of documents, whitespace between them (pages saved one after another, a JSON
   * Lines file of objects): each document's path starts with its number, as if in an array.
   */
  sequence?: boolean;
}

const NOT_CUTTING = 0;
const KEEPING = 1;
const SKIPPING = 2;

export class JsonScanner {
  /** The line being read (1-based). */
  line = 1;
  /** Line of the last character that was not whitespace. */
  lastLine = 1;
  /** A character other than whitespace was seen: the document is not empty. */
  started = false;

  private stopped = false;
  private done = false;
  // Columns: characters fed before the piece being read, and where the current line starts in them.
  private base = 0;
  private lineStart = 0;
  private readonly frames: Frame[] = [];
  private readonly path: Array<string | number> = [];

  // The value being cut out (or skipped): its text so far when it spans pieces, nesting, string state.
  private cutting = NOT_CUTTING;
  private cutText = '';
  private cutDepth = 0;
  private cutInString = false;
  private cutEscape = false;
  private cutScalar = false;
  private cutLine = 0;
  private cutColumn = 0;

  // A key being read (keys may span pieces too).
  private inKey = false;
  private keyText = '';
  private keyEscape = false;

  /** In a sequence, the documents' own frame: an array without brackets or commas. */
  private readonly sequence: Frame | undefined;

  constructor(
    private readonly visitor: JsonScanVisitor,
    options: JsonScanOptions = {},
  ) {
    if (options.sequence) {
      this.sequence = { array: true, index: 0, want: VALUE, key: '' };
      this.frames.push(this.sequence);
    }
  }

  /** Where the value being cut out started, or the current line: bad lines before it are settled. */
  get openLine(): number {
    return this.cutting === NOT_CUTTING ? this.line : this.cutLine;
  }

  /** Ends the scan quietly: the visitor found the file cannot go on. */
  stop(): void {
    this.stopped = true;
  }

  /** Feeds the next piece of the document. Throws JsonScanError where the structure breaks. */
  feed(s: string): void {
    const n = s.length;
    let i = 0;
    while (i < n && !this.stopped) {
      if (this.cutting !== NOT_CUTTING) {
        i = this.cut(s, i);
        continue;
      }
      if (this.inKey) {
        i = this.readKey(s, i);
        continue;
      }
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        if (c === 0x0a) {
          this.line++;
          this.lineStart = this.base + i + 1;
        }
        i++;
        continue;
      }
      this.started = true;
      this.lastLine = this.line;
      if (this.done) this.fail('unexpected text after the end of the JSON document', i);
      const top = this.frames.length > 0 ? this.frames[this.frames.length - 1] : undefined;
      if (top !== undefined && top === this.sequence && top.want === NEXT) {
        // The next document starts: read this character again as its first.
        top.index++;
        top.want = VALUE;
        continue;
      }
      if (top !== undefined && top.want !== VALUE) {
        this.walkPunctuation(top, c, i);
        i++;
        continue;
      }
      if (top?.array && c === 0x5d && top.index === 0 && top !== this.sequence) {
        this.closeContainer();
        i++;
        continue;
      }
      // A value starts (the document itself, an array element or an object member).
      if (c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a) this.fail(`unexpected "${String.fromCharCode(c)}"`, i);
      const container = c === 0x7b || c === 0x5b;
      if (top !== undefined) this.path.push(top.array ? top.index : top.key);
      const decision = this.visitor.decide(this.path, container, this.line);
      if (this.stopped) return;
      if (container && decision === WALK) {
        this.frames.push({ array: c === 0x5b, index: 0, want: c === 0x5b ? VALUE : KEY, key: '' });
        i++;
        continue;
      }
      this.cutting = decision === SKIP ? SKIPPING : KEEPING;
      this.cutText = '';
      this.cutDepth = 0;
      this.cutInString = false;
      this.cutEscape = false;
      this.cutScalar = !container && c !== 0x22;
      this.cutLine = this.line;
      this.cutColumn = this.base + i - this.lineStart + 1;
    }
    this.base += n;
  }

  /** The input is over: a scalar document ends here; anything left open is an error. */
  end(): void {
    if (this.stopped) return;
    const outer = this.sequence === undefined ? 0 : 1;
    if (this.cutting !== NOT_CUTTING && this.cutScalar && this.frames.length === outer) this.endCut('');
    if (this.cutting !== NOT_CUTTING && !this.cutScalar) {
      const message = 'the value that starts here never ends (a quote or bracket missing?)';
      throw new JsonScanError(this.cutLine, this.cutColumn, message);
    }
    if (this.cutting !== NOT_CUTTING || this.inKey || this.frames.length > outer) {
      throw new JsonScanError(this.lastLine, 0, 'the file ends before the JSON document does', true);
    }
  }

  /** A key, a colon, a comma or a closing bracket of a container being walked; `at` is its index. */
  private walkPunctuation(top: Frame, c: number, at: number): void {
    if (top.want === KEY) {
      if (c === 0x22) {
        this.inKey = true;
        this.keyText = '';
        this.keyEscape = false;
      } else if (c === 0x7d && top.index === 0) {
        this.closeContainer();
      } else {
        this.fail('expected an object key', at);
      }
    } else if (top.want === COLON) {
      if (c !== 0x3a) this.fail('expected ":" after an object key', at);
      top.want = VALUE;
    } else if (c === 0x2c) {
      top.index++;
      top.want = top.array ? VALUE : KEY;
    } else if (c === (top.array ? 0x5d : 0x7d)) {
      this.closeContainer();
    } else {
      this.fail(top.array ? 'expected "," or "]"' : 'expected "," or "}"', at);
    }
  }

  private closeContainer(): void {
    this.frames.pop();
    this.afterValue();
  }

  private afterValue(): void {
    if (this.frames.length === 0) {
      this.done = true;
      return;
    }
    this.frames[this.frames.length - 1].want = NEXT;
    this.path.pop();
  }

  /** Reads on through a value being cut out; only brackets, quotes and escapes matter. Returns where it stopped. */
  private cut(s: string, from: number): number {
    const n = s.length;
    let depth = this.cutDepth;
    let inString = this.cutInString;
    let escaped = this.cutEscape;
    let line = this.line;
    let newline = -1;
    let i = from;
    let ended = false;
    if (this.cutScalar) {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        // The terminator is the walker's to read again.
        if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          ended = true;
          break;
        }
      }
    } else {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) {
            inString = false;
            if (depth === 0) {
              i++;
              ended = true;
              break;
            }
          } else if (c === 0x0a) {
            line++;
            newline = i;
          }
        } else if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          if (--depth === 0) {
            i++;
            ended = true;
            break;
          }
        } else if (c === 0x0a) {
          line++;
          newline = i;
        }
      }
    }
    this.line = line;
    if (newline >= 0) this.lineStart = this.base + newline + 1;
    this.cutDepth = depth;
    this.cutInString = inString;
    this.cutEscape = escaped;
    if (ended) {
      this.lastLine = line;
      this.endCut(this.cutting === KEEPING ? s.slice(from, i) : '');
      return i;
    }
    if (this.cutting === KEEPING) {
      if (this.cutText.length + (n - from) > MAX_VALUE_CHARS) {
        const mb = MAX_VALUE_CHARS / (1024 * 1024);
        const message = `the value that starts here runs on past ${mb} MB of text (a quote or bracket missing?)`;
        throw new JsonScanError(this.cutLine, this.cutColumn, message);
      }
      this.cutText += s.slice(from, n);
    }
    return n;
  }

  private endCut(tail: string): void {
    const keep = this.cutting === KEEPING;
    this.cutting = NOT_CUTTING;
    if (keep) {
      const text = this.cutText === '' ? tail : this.cutText + tail;
      this.cutText = '';
      this.visitor.take(this.path, text, this.cutLine, this.line, this.cutColumn);
    }
    this.afterValue();
  }

  private readKey(s: string, from: number): number {
    const n = s.length;
    let escaped = this.keyEscape;
    let i = from;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) break;
      else if (c === 0x0a) {
        // Not JSON; counted so the error names the right line.
        this.line++;
        this.lineStart = this.base + i + 1;
      }
    }
    this.keyEscape = escaped;
    if (i === n) {
      if (this.keyText.length + (n - from) > MAX_VALUE_CHARS) {
        this.fail('an object key runs on (a quote missing?)', from);
      }
      this.keyText += s.slice(from, n);
      return n;
    }
    const raw = this.keyText === '' ? s.slice(from, i) : this.keyText + s.slice(from, i);
    this.keyText = '';
    this.inKey = false;
    const top = this.frames[this.frames.length - 1];
    try {
      top.key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    } catch {
      this.fail('invalid object key', i);
    }
    top.want = COLON;
    return i + 1;
  }

  /** Ends the scan at character `at` of the piece being read. */
  private fail(message: string, at: number): never {
    throw new JsonScanError(this.line, this.base + at - this.lineStart + 1, message);
  }
}
