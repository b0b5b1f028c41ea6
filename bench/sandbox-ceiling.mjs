// What the sandbox can absorb on this machine: pre-serialised bodies of 50 messages posted over
// `concurrency` keep-alive connections (undici, as the tool), each answer read and JSON.parsed.
// No reading, mapping, validation or checkpoint: the ceiling any client could reach here.
//   MIGRATE_API_KEY=... node bench/sandbox-ceiling.mjs <messages.ndjson> <baseUrl> <records> [concurrency=8]
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

const [file, baseUrl, recordsArg, concurrencyArg] = process.argv.slice(2);
const limit = Number(recordsArg);
const concurrency = Number(concurrencyArg ?? 8);
const apiKey = process.env.MIGRATE_API_KEY ?? 'sandbox-key';

const bodies = [];
let batch = [];
let records = 0;
const flush = () => {
  if (batch.length === 0) return;
  bodies.push(`{"messages":{${batch.join(',')}}}`);
  batch = [];
};
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  if (records >= limit) break;
  if (line.trim() === '') continue;
  const m = JSON.parse(line);
  batch.push(`${JSON.stringify(m.muid)}:${line}`);
  records++;
  if (batch.length === 50) flush();
}
flush();

const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: concurrency, pipelining: 1 });
const headers = { 'content-type': 'application/json', accept: 'application/json', apikey: apiKey };
let next = 0;
let failed = 0;
const started = process.hrtime.bigint();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await pool.request({ path: '/v3.0/data_import/messages', method: 'POST', headers, body });
      JSON.parse(await res.body.text());
      if (res.statusCode !== 200) failed++;
    }
  }),
);
const ms = Number(process.hrtime.bigint() - started) / 1e6;
await pool.close();
process.stdout.write(
  `${JSON.stringify({ records, requests: bodies.length, failed, ms, perSec: records / (ms / 1000) })}\n`,
);
