/**
 * CSV with a header row. csv-parse does the quoting; this module names the fields, keeps line
 * numbers exact and turns bad rows into problems.
 *
 * Line numbers are counted here, not taken from csv-parse's `info`: `info.lines` counts a CRLF
 * inside a quoted field as two lines (7.0.3), and `info: true` / `on_record` build two info objects
 * per record, which halves the parse rate. With `skip_empty_lines` off every line belongs to some
 * record (a blank line arrives as `['']`), so a record starts one line after the previous one ends,
 * and it ends after as many lines as its fields hold `\n`s.
 */
import type { JsonObject, SourceItem } from '../entities/types.js';
import { LocalCsvRowParser, WorkerCsvRowParser, type CsvRowParser, type ParsedRows } from './csv-row-parser.js';
import { fileBytes, type Block } from './read-blocks.js';
import { readFileItems, type BlockReader } from './read-file.js';
import { utf8Problem } from './source-items.js';
import type { ReadOptions, ResolvedFile } from './types.js';
import { isFileAtLeast } from './worker-threshold.js';

const CUT_LONG_LINES_AT = 1024 * 1024;

export async function* readCsvRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  // A worker only pays for itself on a large file; unset (import), never.
  const minBytes = options.csvWorkerMinBytes;
  const inWorker = minBytes !== undefined && (await isFileAtLeast(file.path, minBytes));
  const reader = new CsvReader(file.display, inWorker ? new WorkerCsvRowParser() : new LocalCsvRowParser());
  // Blocks handed to the parser whose rows have not been taken yet. A worker gets two ahead, so
  // neither thread waits for the other when one block takes longer (one ahead left both idle ~15%
  // of the time: 1M rows 6.4-6.5 s -> 5.8-6.1 s). In this thread write() has parsed the block when
  // it returns, so holding one back would overlap nothing: its rows are taken at once.
  const ahead = inWorker ? 3 : 1;
  yield* readFileItems(fileBytes(file), reader, { signal: options.signal, cutLongLinesAt: CUT_LONG_LINES_AT, ahead });
}

class CsvReader implements BlockReader<SourceItem> {
  private readonly rows: CsvRows;

  constructor(
    display: string,
    private readonly parser: CsvRowParser,
  ) {
    this.rows = new CsvRows(display);
  }

  get sawContent(): boolean {
    return this.rows.sawHeader;
  }

  get stopped(): boolean {
    return this.rows.broken;
  }

  block(block: Block): SourceItem[] | Promise<SourceItem[]> {
    // Queued before the bytes reach csv-parse: rows are matched to them as they come back.
    if (block.badLines !== undefined) this.rows.badLines.push(...block.badLines);
    const parsed = this.parser.write(block.bytes);
    return parsed instanceof Promise ? parsed.then((p) => this.rows.take(p)) : this.rows.take(parsed);
  }

  async end(): Promise<SourceItem[]> {
    return this.rows.take(await this.parser.end());
  }

  close(): void {
    this.parser.close();
  }
}

/** Turns csv-parse's arrays into SourceItems, tracking lines, ordinals and the header. */
class CsvRows {
  /** Lines with invalid UTF-8, ascending; queued before the bytes reach csv-parse. */
  readonly badLines: number[] = [];
  sawHeader = false;
  /** The CSV broke: rows after it are not taken. */
  broken = false;
  private readonly items: SourceItem[] = [];
  /** Field names by column; undefined for a column whose values are ignored. */
  private names: (string | undefined)[] = [];
  private nextLine = 1;
  private ordinal = 0;

  constructor(private readonly file: string) {}

  private add(record: string[]): void {
    const start = this.nextLine;
    const end = start + countNewlines(record);
    this.nextLine = end + 1;
    const badLine = this.takeBadLine(start, end);
    if (record.length === 1 && record[0].trim() === '' && badLine === undefined) return; // a blank line
    if (!this.sawHeader) {
      this.sawHeader = true;
      if (badLine !== undefined) this.items.push(utf8Problem(this.file, badLine));
      this.readHeader(record, start);
      return;
    }
    const ordinal = this.ordinal++;
    if (badLine !== undefined) {
      this.items.push(utf8Problem(this.file, badLine, ordinal));
    } else if (record.length !== this.names.length) {
      this.items.push({
        kind: 'problem',
        file: this.file,
        line: start,
        ordinal,
        rule: 'input.csv-columns',
        message: `row has ${record.length} fields; header has ${this.names.length}`,
      });
    } else {
      const names = this.names;
      const value: JsonObject = {};
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        // An empty cell means "no value": sending "" would overwrite or fail validation.
        if (name !== undefined && record[i] !== '') value[name] = record[i];
      }
      this.items.push({ kind: 'record', value, file: this.file, line: start, ordinal });
    }
  }

  /** A block's rows (taken in block order) as items, then the syntax error that ends the file, if any. */
  take(parsed: ParsedRows): SourceItem[] {
    if (this.broken) return [];
    for (const record of parsed.rows) this.add(record);
    if (parsed.error !== undefined) {
      this.broken = true;
      this.items.push(this.syntaxProblem(new Error(parsed.error)));
    }
    return this.items.splice(0);
  }

  private syntaxProblem(error: Error): SourceItem {
    const start = this.nextLine;
    return {
      kind: 'problem',
      file: this.file,
      line: start,
      rule: 'input.csv-syntax',
      message: `CSV syntax error in the record starting on line ${start}: ${error.message}; the rest of the file is not read`,
      fatalForFile: true,
    };
  }

  private takeBadLine(start: number, end: number): number | undefined {
    const bad = this.badLines;
    while (bad.length > 0 && bad[0] < start) bad.shift();
    if (bad.length === 0 || bad[0] > end) return undefined;
    const line = bad[0];
    while (bad.length > 0 && bad[0] <= end) bad.shift();
    return line;
  }

  private readHeader(record: string[], line: number): void {
    const seen = new Set<string>();
    this.names = record.map((raw, index) => {
      const name = raw.trim();
      const reason =
        name === ''
          ? `column ${index + 1} has no name`
          : name === '__proto__'
            ? `column ${index + 1} is named "__proto__"`
            : seen.has(name)
              ? `column ${index + 1} repeats the name "${name}"`
              : undefined;
      seen.add(name);
      if (reason === undefined) return name;
      this.items.push({
        kind: 'problem',
        file: this.file,
        line,
        rule: 'input.csv-header',
        message: `${reason}; its values are ignored`,
      });
      return undefined;
    });
  }
}

function countNewlines(record: string[]): number {
  let count = 0;
  for (const field of record) {
    for (let at = field.indexOf('\n'); at >= 0; at = field.indexOf('\n', at + 1)) count++;
  }
  return count;
}
