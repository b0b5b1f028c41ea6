/**
 * NDJSON / JSON Lines: one object per line. Each line stands alone, so a bad line costs one record
 * slot and reading goes on. Lines are split from decoded blocks by hand and parsed with JSON.parse:
 * readline's per-line events cost more than the parse itself for short records.
 */
import type { SourceItem } from '../entities/types.js';
import { CorruptGzipError, readBlocks, type Block } from './read-blocks.js';
import { describeValue, emptyFileProblem, gzipProblem, isBlank, utf8Problem } from './source-items.js';
import type { ReadOptions, ResolvedFile } from './types.js';

export async function* readNdjsonRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  const { signal } = options;
  const display = file.display;
  let ordinal = 0;
  let sawContent = false;

  try {
    for await (const block of readBlocks(file, { signal })) {
      const parsed = ndjsonBlockItems(block, display, ordinal);
      ordinal = parsed.nextOrdinal;
      sawContent ||= parsed.sawContent;
      if (signal?.aborted) return;
      if (parsed.items.length > 0) yield parsed.items;
    }
  } catch (error) {
    if (!(error instanceof CorruptGzipError)) throw error;
    yield [gzipProblem(display, error)];
    return;
  }
  if (!sawContent && !signal?.aborted) yield [emptyFileProblem(display)];
}

/** One block's items (lines are whole in a block), numbering record slots from `ordinal`. */
export function ndjsonBlockItems(
  block: Block,
  display: string,
  ordinal: number,
): { items: SourceItem[]; nextOrdinal: number; sawContent: boolean } {
  const items: SourceItem[] = [];
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
      items.push(utf8Problem(display, line, ordinal++));
    } else if (!isBlank(text, start, end)) {
      sawContent = true;
      items.push(parseLine(text.slice(start, end), display, line, ordinal++));
    }
    start = end + 1;
  }
  return { items, nextOrdinal: ordinal, sawContent };
}

function parseLine(text: string, file: string, line: number, ordinal: number): SourceItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      kind: 'problem',
      file,
      line,
      ordinal,
      rule: 'input.json-syntax',
      message: `invalid JSON: ${(error as Error).message}`,
    };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return { kind: 'record', value: value as Record<string, unknown>, file, line, ordinal };
  }
  return {
    kind: 'problem',
    file,
    line,
    ordinal,
    rule: 'input.not-object',
    message: `line holds ${describeValue(value)}, not an object`,
  };
}
