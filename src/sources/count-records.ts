import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { EntityName } from '../entities/types.js';
import { CsvRecordCounter } from './csv-record-counter.js';
import { fileBytes } from './read-blocks.js';
import { countJsonRecords } from './read-json.js';
import type { ResolvedFile } from './types.js';

/** What a counter needs: the bytes in order, then the end. */
export interface RecordCounter {
  feed(chunk: Buffer): void;
  /** The record slots the reader gives the file (header and blank lines are not records). */
  end(): number;
}

/**
 * The record slots a reader will give a file, for a progress bar's total: a count of what is read,
 * not of lines (a quoted field may hold line breaks; blank lines are no records). CSV and NDJSON are
 * counted at disk speed, one chunk at a time, searching bytes with `indexOf` (memchr) rather than
 * parsing; JSON by the JSON reader's own scan, passing over each record (json-scan.ts). A CSV file
 * csv-parse refuses rows of (a quote that never closes), or one the readers refuse as another encoding
 * than UTF-8, may come out off: the bar then ends at what was read.
 */
export async function countRecords(file: ResolvedFile, entity: EntityName, signal?: AbortSignal): Promise<number> {
  if (file.format === 'json') return countJsonRecords(file, { signal, entity });
  const counter = file.format === 'csv' ? new CsvRecordCounter() : new NdjsonRecordCounter();
  // A plain file in 1 MB reads (a fifth of the calls of the readers' 64 KB); gzip through the readers' layer.
  const stream: Readable = file.gzip
    ? await fileBytes(file).open()
    : createReadStream(file.path, { highWaterMark: 1 << 20, signal });
  if (file.gzip && signal) signal.addEventListener('abort', () => stream.destroy(signal.reason as Error));
  for await (const chunk of stream as AsyncIterable<Buffer>) counter.feed(chunk);
  return counter.end();
}

const LF = 0x0a;

/** NDJSON: lines holding anything but JSON whitespace (space, tab, CR), as `splitJsonLines` takes them. */
export class NdjsonRecordCounter implements RecordCounter {
  private records = 0;
  /** The line under way holds something: it is a record once it ends. */
  private content = false;
  private started = false;

  feed(chunk: Buffer): void {
    let at = 0;
    if (!this.started) {
      // The readers drop a UTF-8 BOM (read-blocks.ts): it makes no line hold something.
      this.started = true;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) at = 3;
    }
    while (at < chunk.length) {
      if (!this.content) {
        // Blank so far: look at bytes until one is not whitespace or the line ends.
        const b = chunk[at++];
        if (b === LF) continue;
        if (b !== 0x20 && b !== 0x09 && b !== 0x0d) this.content = true;
        continue;
      }
      const lf = chunk.indexOf(LF, at);
      if (lf < 0) return;
      this.records++;
      this.content = false;
      at = lf + 1;
    }
  }

  end(): number {
    return this.records + (this.content ? 1 : 0);
  }
}
