/**
 * When validate reads a file with a worker thread (CSV parsing in csv-row-parser.ts, NDJSON messages in
 * checked-messages.ts).
 */
import { stat } from 'node:fs/promises';

/**
 * Files from this size on get a worker. Why 8 MB: a worker takes ~50 ms to its first rows and a heap
 * of its own, and saves about a fifth of the reading time (docs/design-notes.md), so it pays only on
 * files whose reading lasts well beyond that start; below this line (a few tens of thousands of
 * records) one thread is as fast and a small export does not pay the second heap.
 */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;

/**
 * Whether the file holds at least `minBytes` bytes as stored (a .gz file's compressed size). A
 * threshold of 0 or less means yes without a look (tests force the worker so); a file that cannot
 * be stat'ed counts as empty, and the reader reports the real error when it opens it.
 */
export async function isFileAtLeast(path: string, minBytes: number): Promise<boolean> {
  if (minBytes <= 0) return true;
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  return size >= minBytes;
}
