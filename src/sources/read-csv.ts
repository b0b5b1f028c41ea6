/**
 * CSV with a header row. csv-parse does the quoting; csv-rows.ts names the fields, keeps line
 * numbers exact and turns bad rows into problems.
 *
 * A row csv-parse cannot read (a quote that never closes, text after a closing quote) costs that
 * row, not the rest of the file: the row is a problem in its slot and a new parser takes the bytes
 * from the line after the row's first. So this reader keeps the blocks of the row being read, which
 * is one block or two unless a quoted field spans many: a quote that never closes holds up to
 * csv-parse's limit (16 MB of text) before it is known to be one. csv-parse stops for good after an
 * error, and its `skip_records_with_error` cannot help a quote that never closes: the rest of the
 * file is inside it (7.0.3).
 */
import type { SourceItem } from '../entities/types.js';
import { LocalCsvRowParser, WorkerCsvRowParser, type CsvRowParser, type ParsedRows } from './csv-row-parser.js';
import { CsvRows } from './csv-rows.js';
import { fileBytes, lastLineOf, type Block } from './read-blocks.js';
import { readFileItems, type BlockReader } from './read-file.js';
import type { ReadOptions, ResolvedFile } from './types.js';
import { isFileAtLeast } from './worker-threshold.js';
import { csvHeaderBytes } from './read-on.js';

const CUT_LONG_LINES_AT = 1024 * 1024;
/** How much of a backlog one call reads again (see CsvReader.backlog). */
const REFEED_BYTES = 1024 * 1024;
const LF = 0x0a;

export async function* readCsvRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  // A worker only pays for itself on a large file; unset (import), never.
  const minBytes = options.csvWorkerMinBytes;
  const inWorker = minBytes !== undefined && (await isFileAtLeast(file.path, minBytes));
  const parser = inWorker ? new WorkerCsvRowParser() : new LocalCsvRowParser();
  const { from } = options;
  const reader = new CsvReader(new CsvRows(file.display, from), parser);
  // Read on from `from`: the header row, read from the file's start, names the fields all the same.
  const header = from === undefined ? undefined : await csvHeaderBytes(file);
  // Blocks handed to the parser whose rows have not been taken yet. A worker gets two ahead, so
  // neither thread waits for the other when one block takes longer (one ahead left both idle ~15%
  // of the time: 1M rows 6.4-6.5 s -> 5.8-6.1 s). In this thread write() has parsed the block when
  // it returns, so holding one back would overlap nothing: its rows are taken at once.
  const ahead = inWorker ? 3 : 1;
  const { signal, onEnd } = options;
  yield* readFileItems(fileBytes(file, from, header), reader, {
    signal,
    cutLongLinesAt: CUT_LONG_LINES_AT,
    ahead,
    onEnd,
  });
}

class CsvReader implements BlockReader<SourceItem> {
  /** Blocks handed to the parser from the one the next row starts in: what a new parser would read again. */
  private kept: Block[] = [];
  /**
   * After a row that broke: the bytes the new parser is still to read, a few blocks a call, so a
   * quote open for 16 MB comes back as many batches of rows, not one of hundreds of thousands.
   */
  private backlog: Block[] = [];
  /** The parser that replaced the first: always in this thread, so its rows come back at once. */
  private local: LocalCsvRowParser | undefined;
  /** The worker replaced after an error: ended once the answers it still owes have come. */
  private replaced: CsvRowParser | undefined;
  /** Answers the worker owes. */
  private owed = 0;
  /** Counts parsers: the rows of a replaced one are dropped, as its bytes went to the new one. */
  private generation = 0;
  private parserEnded = false;

  constructor(
    private readonly rows: CsvRows,
    private parser: CsvRowParser,
  ) {}

  get sawContent(): boolean {
    return this.rows.sawHeader || this.rows.stopped;
  }

  get stopped(): boolean {
    return this.rows.stopped;
  }

  get more(): boolean {
    return this.backlog.length > 0 || !this.parserEnded;
  }

  block(block: Block): SourceItem[] | Promise<SourceItem[]> {
    // Queued before the bytes reach csv-parse: rows are matched to them as they come back.
    if (block.badLines !== undefined) this.rows.badLines.push(...block.badLines);
    this.kept.push(block);
    if (this.backlog.length > 0) {
      this.backlog.push(block);
      return this.feedBacklog();
    }
    const generation = this.generation;
    const parsed = this.parser.write(block.bytes);
    if (!(parsed instanceof Promise)) return this.took(parsed, generation);
    this.owed++;
    return parsed.then((p) => {
      this.owed--;
      const items = this.took(p, generation);
      this.endReplaced();
      return items;
    });
  }

  /** Called again while `more`: a backlog to read, or a new parser to end after a row broke at the end. */
  async end(): Promise<SourceItem[]> {
    if (this.backlog.length > 0) return this.feedBacklog();
    const generation = this.generation;
    this.parserEnded = true;
    const items = this.took(await this.parser.end(), generation);
    this.endReplaced();
    return items;
  }

  stopProblem(lastLine: number): SourceItem[] {
    return this.rows.stopProblem(lastLine);
  }

  close(): void {
    this.parser.close();
    this.replaced?.close();
  }

  private took(parsed: ParsedRows, generation: number): SourceItem[] {
    if (generation !== this.generation) return [];
    const items = this.rows.take(parsed);
    if (parsed.error !== undefined && !this.rows.stopped) this.restart();
    else this.release();
    return items;
  }

  /** After a row that could not be read: a new parser, in this thread, reads on from the line after it. */
  private restart(): void {
    // A worker may still owe answers (dropped by generation); a parser in this thread owes none.
    if (this.parser === this.local) this.parser.close();
    else this.replaced = this.parser;
    this.local = new LocalCsvRowParser();
    this.parser = this.local;
    this.parserEnded = false;
    this.generation++;
    this.backlog = fromLine(this.kept, this.rows.nextLine);
  }

  private feedBacklog(): SourceItem[] {
    const items: SourceItem[] = [];
    for (let fed = 0; this.backlog.length > 0 && fed < REFEED_BYTES; ) {
      const block = this.backlog.shift()!;
      fed += block.bytes.length;
      const parsed = this.local!.write(block.bytes);
      append(items, this.rows.take(parsed));
      if (parsed.error !== undefined) this.restart();
    }
    this.release();
    return items;
  }

  /** Ends the replaced worker once it owes nothing: it holds the row that broke (up to 16 MB). */
  private endReplaced(): void {
    if (this.replaced === undefined || this.owed > 0) return;
    this.replaced.close();
    this.replaced = undefined;
  }

  /** Lets go of the blocks whose bytes all belong to rows already taken. */
  private release(): void {
    const next = this.rows.nextLine;
    const kept = this.kept;
    let done = 0;
    while (done < kept.length && lastLineOf(kept[done]) < next) done++;
    if (done > 0) kept.splice(0, done);
  }
}

/** The kept blocks from the start of `line` on (it starts after a newline in them). */
function fromLine(blocks: Block[], line: number): Block[] {
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (block.lineAfter < line) continue;
    let at = -1;
    for (let n = line - block.firstLine; n > 0; n--) at = block.bytes.indexOf(LF, at + 1);
    const first: Block = { bytes: block.bytes.subarray(at + 1), firstLine: line, lineAfter: block.lineAfter };
    return [first, ...blocks.slice(i + 1)];
  }
  return [];
}

/** Pushes one by one: a block can hold more rows than a spread's arguments may number. */
function append(items: SourceItem[], more: SourceItem[]): void {
  for (const item of more) items.push(item);
}
