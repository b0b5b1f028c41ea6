/**
 * How a JSON export file is laid out, told from its first value: a JSON array, one JSON object per
 * line, or one document. init's peek and the presets that take any of the three read it alike.
 */
import { readBlocks } from '../../sources/read-blocks.js';
import type { PresetContext } from './context.js';
import { treeBytes } from './inputs.js';

export type FileShape = 'array' | 'document' | 'lines';

const BLOCK_BYTES = 64 * 1024;
/**
 * How far a first object with no line break in it is followed. A line of an export is far shorter; a
 * minified document is not, and is told by this much.
 */
const FIRST_VALUE_LIMIT = 64 * 1024 * 1024;

/**
 * `[`: an array. `{`: its object is followed to its end (a first line of any length: a user with a
 * long custom field), then one object per line if another value starts on a later line, else one
 * document. A line break inside the first object means a printed document.
 */
export async function detectLayout(ctx: Pick<PresetContext, 'tree'>, rel: string): Promise<FileShape | undefined> {
  const scan = new FirstValue();
  let read = 0;
  // Through the byte layer, as the reading will be: the same BOM handling, whole characters.
  for await (const block of readBlocks(treeBytes(ctx.tree, rel), { cutLongLinesAt: BLOCK_BYTES })) {
    const shape = scan.feed(block.bytes.toString('utf8'));
    if (shape !== 'unknown') return shape;
    read += block.bytes.length;
    if (read >= FIRST_VALUE_LIMIT) return 'document';
  }
  return scan.atEnd();
}

/** A scan of a file's text up to the start of its second value, strings and escapes respected. */
class FirstValue {
  private state: 'start' | 'value' | 'after' = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private newlineAfter = false;

  feed(text: string): FileShape | undefined | 'unknown' {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.state === 'start') {
        if (isSpace(c)) continue;
        if (c === BRACKET_OPEN) return 'array';
        if (c !== BRACE_OPEN) return undefined;
        this.state = 'value';
        this.depth = 1;
      } else if (this.state === 'value') {
        if (this.step(c)) this.state = 'after';
        if (c === NEWLINE && !this.inString) return 'document';
      } else if (c === NEWLINE) this.newlineAfter = true;
      else if (!isSpace(c)) return this.newlineAfter ? 'lines' : 'document';
    }
    return 'unknown';
  }

  /** The file ended: one object and a line break is a file of one line. */
  atEnd(): FileShape | undefined {
    if (this.state === 'start') return undefined;
    return this.state === 'after' && this.newlineAfter ? 'lines' : 'document';
  }

  /** One character of the first value; true when it closes the value. */
  private step(c: number): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) this.inString = false;
      return false;
    }
    if (c === QUOTE) this.inString = true;
    else if (c === BRACE_OPEN || c === BRACKET_OPEN) this.depth++;
    else if (c === BRACE_CLOSE || c === BRACKET_CLOSE) return --this.depth === 0;
    return false;
  }
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === NEWLINE;
