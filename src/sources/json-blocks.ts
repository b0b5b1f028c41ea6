/**
 * The block side of a JSON scan, shared by plain JSON sources (read-json.ts) and presets' documents
 * (read-pieces.ts): feeds each block's text to the scanner, sets the lines of invalid UTF-8 the
 * blocks reported against the values taken, and ends the document. A value that touches a bad line
 * stands as `input.utf8` in its slot; a bad line no value touches (between records, in a key) is
 * reported on its own, in line order with the values. A break in the structure ends the file: its
 * problem names line and column, and, once the rest has been read through, the lines it cost.
 */
import {
  JsonScanError,
  JsonScanner,
  type Decision,
  type JsonPath,
  type JsonScanOptions,
  type JsonScanVisitor,
} from './json-scan.js';
import type { Block } from './read-blocks.js';
import type { BlockReader } from './read-file.js';
import { lineSpan } from './source-items.js';

export abstract class JsonBlockReader<T> implements BlockReader<T>, JsonScanVisitor {
  stopped = false;
  protected items: T[] = [];
  protected readonly scanner: JsonScanner;
  private readonly badLines: number[] = [];
  /** The last bad line a value touched: the next value may start on the same line. */
  private sharedBadLine = 0;
  /** The break that ended the file: its problem waits for the file's last line. */
  private breakError: JsonScanError | undefined;

  constructor(options: JsonScanOptions = {}) {
    this.scanner = new JsonScanner(this, options);
  }

  get sawContent(): boolean {
    return this.scanner.started;
  }

  abstract decide(path: JsonPath, container: boolean, line: number): Decision;
  abstract take(path: JsonPath, text: string, line: number, endLine: number, column: number): void;
  /** The item for a bad line no value touched. */
  protected abstract strayLine(line: number): T;
  /** The item for a break in the structure, which ends the file; `message` is complete. */
  protected abstract broken(line: number, message: string): T;
  /** Problems only visible once the whole document has been seen. */
  protected finish(): void {}

  block(block: Block): T[] {
    if (block.badLines !== undefined) this.badLines.push(...block.badLines);
    try {
      this.scanner.feed(block.bytes.toString('utf8'));
    } catch (error) {
      this.fail(error);
    }
    // Lines before the value being cut out (or the line being read) can no longer be touched.
    if (!this.stopped && this.badLines.length > 0) this.reportStrays(this.scanner.openLine);
    return this.handOver();
  }

  end(): T[] {
    if (!this.scanner.started) return this.handOver(); // empty: the file's problem, not the document's
    try {
      this.scanner.end();
    } catch (error) {
      this.fail(error);
      return this.handOver();
    }
    if (this.stopped) return this.handOver();
    this.reportStrays(Number.POSITIVE_INFINITY);
    this.finish();
    return this.handOver();
  }

  /** Ends the file where it is: nothing after this is read. */
  protected stop(): void {
    this.stopped = true;
    this.scanner.stop();
  }

  /** The first bad line a value on lines [start, end] touches, or 0; untouched bad lines before it go out first. */
  protected badLineOf(start: number, end: number): number {
    const lines = this.badLines;
    let found = this.sharedBadLine === start ? start : 0;
    if (lines.length === 0) return found;
    this.reportStrays(start);
    while (lines.length > 0 && lines[0] <= end) {
      const line = lines.shift()!;
      if (found === 0) found = line;
      this.sharedBadLine = line;
    }
    return found;
  }

  /** Ends the file at a break in the structure, after the bad lines up to it. */
  protected fail(error: unknown): void {
    if (!(error instanceof JsonScanError)) throw error;
    this.reportStrays(error.line + 1);
    this.breakError = error;
    this.stop();
  }

  stopProblem(lastLine: number): T[] {
    const error = this.breakError;
    if (error === undefined) return []; // stopped with its own problem already given
    if (error.atEnd) return [this.broken(error.line, `invalid JSON at the end of the file: ${error.message}`)];
    const rest = lastLine > error.line ? `: ${lineSpan(error.line, lastLine)}` : ` (the rest of line ${error.line})`;
    const lost = `nothing from there on could be read${rest}`;
    const at = `line ${error.line}, column ${error.column}`;
    return [this.broken(error.line, `invalid JSON at ${at}: ${error.message}; ${lost}`)];
  }

  private reportStrays(before: number): void {
    const lines = this.badLines;
    while (lines.length > 0 && lines[0] < before) this.items.push(this.strayLine(lines.shift()!));
  }

  private handOver(): T[] {
    const items = this.items;
    this.items = [];
    return items;
  }
}
