/**
 * The source readers: files in, SourceItems out. Every reader streams (memory does not grow with
 * the file), numbers records and lines exactly, and reports bad input as SourceProblems instead of
 * throwing. Only a file that cannot be opened or read throws (InputError). An abort ends the
 * iteration early without an error: callers check `signal.aborted`, as the pipeline stages do.
 */
import type { SourceItem } from '../entities/types.js';
import { readCsvRecords } from './read-csv.js';
import { readJsonRecords } from './read-json.js';
import { readNdjsonRecords } from './read-ndjson.js';
import type { ReadOptions, ResolvedFile } from './types.js';

export { resolveSourceFiles } from './resolve-files.js';
export type { ReadOptions, ResolvedFile } from './types.js';

/**
 * Streams one file as SourceItems: records with file (display), line (where the record starts)
 * and ordinal (0-based count of record slots in the file, bad ones included), and problems for
 * malformed input. Rule codes: input.json-syntax, input.not-object, input.json-shape,
 * input.csv-columns, input.csv-syntax, input.csv-header, input.utf8, input.gzip, input.empty-file.
 */
export async function* readSourceFile(file: ResolvedFile, options: ReadOptions = {}): AsyncIterable<SourceItem> {
  for await (const batch of readSourceBatches(file, options)) {
    for (const item of batch) {
      if (options.signal?.aborted) return;
      yield item;
    }
  }
}

/**
 * The same items in batches (one per block read): the pipeline's hot path takes these, so the cost
 * of an async step is paid per block of records, not per record.
 */
export function readSourceBatches(file: ResolvedFile, options: ReadOptions = {}): AsyncIterable<SourceItem[]> {
  switch (file.format) {
    case 'csv':
      return readCsvRecords(file, options);
    case 'json':
      return readJsonRecords(file, options);
    case 'ndjson':
      return readNdjsonRecords(file, options);
  }
}
