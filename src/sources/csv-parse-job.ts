/**
 * csv-parse as both threads run it: the parser's options, taking its rows, and the job a worker
 * thread runs (worker-thread.ts), which parses the blocks it is sent and answers with their rows.
 */
import { Parser } from 'csv-parse';
import type { WorkerJob } from './worker-job.js';

/** Beyond this a record is a runaway quote, not data: stop instead of buffering the rest of the file. */
export const MAX_RECORD_CHARS = 16 * 1024 * 1024;

/** What one block gave: its complete rows and, when the CSV broke in it, csv-parse's message and code. */
export interface ParsedRows {
  rows: string[][];
  error?: string;
  /** csv-parse's code, e.g. `CSV_QUOTE_NOT_CLOSED`. */
  code?: string;
}

/** A block to parse, or the end of the file (its last record need not end with a newline). */
export type CsvJobMessage = { bytes: Uint8Array } | { end: true };

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
  for (let row = parser.read() as string[] | null; row !== null; row = parser.read() as string[] | null) rows.push(row);
  const error = parser.errored as (Error & { code?: string }) | null;
  return error ? { rows, error: error.message, code: error.code } : { rows };
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

/** The worker thread's side (WorkerCsvRowParser): one parser for the whole file. */
export function startJob(): WorkerJob<CsvJobMessage, ParsedRows> {
  const parser = createCsvParser();
  return {
    take(message) {
      if ('end' in message) return endParser(parser);
      const bytes = message.bytes;
      parser.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return takeRows(parser);
    },
  };
}
