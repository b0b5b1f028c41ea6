/**
 * NDJSON / JSON Lines: one object per line. Each line stands alone, so a bad line costs one record
 * slot and reading goes on. Lines are split from decoded blocks by hand and parsed with JSON.parse:
 * readline's per-line events cost more than the parse itself for short records. `splitJsonLines` is
 * the one line splitter: plain NDJSON sources, validate's worker and presets' JSON Lines files use it.
 */
import type { SourceItem } from '../entities/types.js';
import { jsonErrorPlace, jsonErrorReason } from '../json/json-error.js';
import { fileBytes, type Block } from './read-blocks.js';
import { readFileItems, type BlockReader } from './read-file.js';
import { describeValue, isBlank, UTF8_MESSAGE } from './source-items.js';
import type { ReadOptions, ResolvedFile } from './types.js';

/** What the lines of a block hold, one call per non-blank line. */
export interface JsonLineSink {
  /** A line's parsed value, whatever its type. */
  value(value: unknown, line: number): void;
  /** A line that stands for a value but holds none: not valid UTF-8 (`input.utf8`) or not JSON. */
  bad(rule: string, message: string, line: number): void;
}

/** What line splitting needs of a block: validate's worker rebuilds this much of one. */
export type LinesBlock = Pick<Block, 'bytes' | 'firstLine' | 'badLines'>;

/** Hands each non-blank line of a block (lines are whole in a block) to `sink`; true when there was one. */
export function splitJsonLines(block: LinesBlock, sink: JsonLineSink): boolean {
  const text = block.bytes.toString('utf8');
  const badLines = block.badLines;
  let badIndex = 0;
  let line = block.firstLine;
  let sawContent = false;
  for (let start = 0; start < text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (badLines !== undefined && badLines[badIndex] === line) {
      badIndex++;
      sawContent = true;
      sink.bad('input.utf8', UTF8_MESSAGE, line);
    } else if (!isBlank(text, start, end)) {
      sawContent = true;
      let value: unknown;
      let parsed = true;
      try {
        value = JSON.parse(text.slice(start, end));
      } catch (error) {
        parsed = false;
        const column = jsonErrorPlace(text.slice(start, end), line).column;
        const reason = jsonErrorReason(error as Error);
        sink.bad('input.json-syntax', `invalid JSON at line ${line}, column ${column}: ${reason}`, line);
      }
      if (parsed) sink.value(value, line);
    }
    start = end + 1;
  }
  return sawContent;
}

/** One NDJSON block's items, numbering record slots on from where the previous block ended. */
export class NdjsonItems implements JsonLineSink {
  items: SourceItem[] = [];
  ordinal: number;

  constructor(
    private readonly display: string,
    ordinal = 0,
  ) {
    this.ordinal = ordinal;
  }

  value(value: unknown, line: number): void {
    const ordinal = this.ordinal++;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      this.items.push({ kind: 'record', value: value as Record<string, unknown>, file: this.display, line, ordinal });
      return;
    }
    const message = `line holds ${describeValue(value)}, not an object`;
    this.items.push({ kind: 'problem', file: this.display, line, ordinal, rule: 'input.not-object', message });
  }

  bad(rule: string, message: string, line: number): void {
    this.items.push({ kind: 'problem', file: this.display, line, ordinal: this.ordinal++, rule, message });
  }
}

export function readNdjsonRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  const { from, signal, onEnd } = options;
  return readFileItems(fileBytes(file, from), new NdjsonReader(file.display, from?.ordinal), { signal, onEnd });
}

class NdjsonReader implements BlockReader<SourceItem> {
  sawContent: boolean;
  readonly stopped = false;
  private readonly sink: NdjsonItems;

  /** Read on from `ordinal` (not 0): the file held records before, so it is not empty whatever follows. */
  constructor(display: string, ordinal = 0) {
    this.sink = new NdjsonItems(display, ordinal);
    this.sawContent = ordinal > 0;
  }

  block(block: Block): SourceItem[] {
    this.sawContent = splitJsonLines(block, this.sink) || this.sawContent;
    const items = this.sink.items;
    this.sink.items = [];
    return items;
  }

  end(): SourceItem[] {
    return [];
  }
}

/** One block's items (lines are whole in a block), numbering record slots from `ordinal`. */
export function ndjsonBlockItems(
  block: LinesBlock,
  display: string,
  ordinal: number,
): { items: SourceItem[]; nextOrdinal: number; sawContent: boolean } {
  const sink = new NdjsonItems(display, ordinal);
  const sawContent = splitJsonLines(block, sink);
  return { items: sink.items, nextOrdinal: sink.ordinal, sawContent };
}
