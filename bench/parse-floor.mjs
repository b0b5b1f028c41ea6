// The parse floor: read a messages file with the parser the tool uses for that format and do nothing
// else but count records. Prints {"format","records","ms"} on stdout.
//   node bench/parse-floor.mjs <ndjson|csv|json> <file>
import { createReadStream } from 'node:fs';
import { Parser } from 'csv-parse';
import { parser as jsonParser } from 'stream-json';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import chain from 'stream-chain';

const [format, file] = process.argv.slice(2);
const READ_SIZE = 256 * 1024;

/** NDJSON: a line reader (split decoded chunks on \n) and JSON.parse per line. */
async function ndjson() {
  let records = 0;
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: READ_SIZE })) {
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      if (end > start) {
        JSON.parse(text.slice(start, end));
        records++;
      }
      start = end + 1;
    }
    rest = text.slice(start);
  }
  if (rest.trim() !== '') {
    JSON.parse(rest);
    records++;
  }
  return records;
}

/** CSV: csv-parse with a header row, as arrays (what the tool's reader takes from it). */
async function csv() {
  let rows = 0;
  const parser = new Parser({ bom: true, relax_column_count: true, record_delimiter: ['\r\n', '\n'] });
  const stream = createReadStream(file, { highWaterMark: READ_SIZE }).pipe(parser);
  for await (const _ of stream) rows++;
  return rows - 1; // the header row
}

/** JSON array: stream-json 3.x in its fast configuration plus streamArray. */
function json() {
  return new Promise((resolve, reject) => {
    let records = 0;
    const pipeline = chain([
      createReadStream(file, { highWaterMark: READ_SIZE }),
      jsonParser({ packValues: true, streamValues: false }),
      streamArray(),
    ]);
    pipeline.on('data', () => records++);
    pipeline.on('end', () => resolve(records));
    pipeline.on('error', reject);
  });
}

const readers = { ndjson, csv, json };
if (!readers[format] || !file) {
  process.stderr.write('usage: node bench/parse-floor.mjs <ndjson|csv|json> <file>\n');
  process.exit(2);
}
const started = process.hrtime.bigint();
const records = await readers[format]();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
process.stdout.write(`${JSON.stringify({ format, records, ms })}\n`);
