import { createReadStream } from 'node:fs';

/**
 * Newlines in a file, for a progress bar's total: NDJSON has one record a line, CSV about one (quoted
 * newlines make it an over-estimate, which the bar corrects as it goes). Reads at disk speed and
 * holds one chunk at a time.
 */
export async function countLines(path: string, signal?: AbortSignal): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1];
  }
  return last === 10 ? lines : lines + 1;
}
