/**
 * csv-parse behind one small interface, in this thread or in a worker thread.
 *
 * Why a worker: csv-parse takes about as long as everything validate does with a row afterwards, so
 * on a large file parsing block N+1 in a worker while this thread maps and checks block N's rows
 * saves ~20% of validate's time (1M messages: 10.7-11.9 s -> 8.3-9.0 s). Rows cross as arrays of
 * strings. Only validate asks for it, and only for files of WORKER_MIN_BYTES or more (a worker takes
 * ~50 ms to start and ~40 MB of memory; worker-threshold.ts); import keeps the parser in its thread
 * (see ReadOptions).
 */
import { Worker } from 'node:worker_threads';
import { Parser } from 'csv-parse';

/** Beyond this a record is a runaway quote, not data: stop instead of buffering the rest of the file. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024;

/** What one block gave: its complete rows and, when the CSV broke in it, csv-parse's message. */
export interface ParsedRows {
  rows: string[][];
  error?: string;
}

export interface CsvRowParser {
  /** Parses a block; rows come back in the order blocks went in. */
  write(bytes: Buffer): Promise<ParsedRows>;
  /** The last record (a file need not end with a newline). */
  end(): Promise<ParsedRows>;
  close(): void;
}

/** The parser both sides use: the same options whichever thread runs it. */
export function createCsvParser(): Parser {
  const parser = new Parser({
    bom: true,
    relax_column_count: true,
    record_delimiter: ['\r\n', '\n'],
    max_record_size: MAX_RECORD_CHARS,
  });
  parser.on('error', () => {}); // seen through parser.errored, after the records before it are taken
  return parser;
}

/**
 * csv-parse parses a whole written buffer synchronously, so after write() its records wait in the
 * readable buffer, and reading them all lets the next write() run synchronously too.
 */
export function takeRows(parser: Parser): ParsedRows {
  const rows: string[][] = [];
  for (let record = parser.read() as string[] | null; record !== null; record = parser.read() as string[] | null) rows.push(record);
  return parser.errored ? { rows, error: parser.errored.message } : { rows };
}

export async function endParser(parser: Parser): Promise<ParsedRows> {
  parser.end();
  if (!parser.writableFinished && !parser.errored) {
    await new Promise<void>((resolve) => {
      parser.once('finish', resolve);
      parser.once('error', () => resolve());
    });
  }
  return takeRows(parser);
}

/** In this thread: for small files. */
export class LocalCsvRowParser implements CsvRowParser {
  private readonly parser = createCsvParser();

  write(bytes: Buffer): Promise<ParsedRows> {
    this.parser.write(bytes);
    return Promise.resolve(takeRows(this.parser));
  }

  end(): Promise<ParsedRows> {
    return endParser(this.parser);
  }

  close(): void {
    this.parser.destroy();
  }
}

/** In a worker thread (csv-parse-worker.ts); answers come back in order, so they are matched FIFO. */
export class WorkerCsvRowParser implements CsvRowParser {
  private readonly worker = new Worker(new URL('./csv-parse-worker.js', import.meta.url), {
    // Its own heap, counted in the same 150 MB: a small young generation (8 MB took validate to 146).
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  private readonly waiting: Array<{ resolve: (rows: ParsedRows) => void; reject: (error: Error) => void }> = [];
  private failure: Error | undefined;

  constructor() {
    this.worker.on('message', (answer: ParsedRows) => this.waiting.shift()?.resolve(answer));
    this.worker.on('error', (error: Error) => this.fail(error));
    this.worker.on('exit', () => this.fail(new Error('the CSV parser thread stopped')));
  }

  write(bytes: Buffer): Promise<ParsedRows> {
    return this.send({ bytes });
  }

  end(): Promise<ParsedRows> {
    return this.send({ end: true });
  }

  close(): void {
    this.waiting.length = 0;
    void this.worker.terminate();
  }

  private send(message: { bytes?: Buffer; end?: boolean }): Promise<ParsedRows> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message);
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}
