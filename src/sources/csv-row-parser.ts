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
import { createCsvParser, endParser, takeRows, type CsvJobMessage, type ParsedRows } from './csv-parse-job.js';
import { WorkerThread } from './worker-thread.js';

export type { ParsedRows } from './csv-parse-job.js';

export interface CsvRowParser {
  /** Parses a block; rows come back in the order blocks went in (at once when parsed in this thread). */
  write(bytes: Buffer): ParsedRows | Promise<ParsedRows>;
  /** The last record (a file need not end with a newline). */
  end(): Promise<ParsedRows>;
  close(): void;
}

/** In this thread: for small files. */
export class LocalCsvRowParser implements CsvRowParser {
  private readonly parser = createCsvParser();

  write(bytes: Buffer): ParsedRows {
    this.parser.write(bytes);
    return takeRows(this.parser);
  }

  end(): Promise<ParsedRows> {
    return endParser(this.parser);
  }

  close(): void {
    this.parser.destroy();
  }
}

/** In a worker thread running csv-parse-job.ts. */
export class WorkerCsvRowParser implements CsvRowParser {
  private readonly thread = new WorkerThread<CsvJobMessage, ParsedRows>(
    new URL('./csv-parse-job.js', import.meta.url),
    { name: 'CSV parser' },
  );

  write(bytes: Buffer): Promise<ParsedRows> {
    return this.thread.send({ bytes });
  }

  end(): Promise<ParsedRows> {
    return this.thread.send({ end: true });
  }

  close(): void {
    this.thread.terminate();
  }
}
