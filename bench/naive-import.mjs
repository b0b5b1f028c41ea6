// The script a user would write instead of the tool: read the whole JSON array, post it in
// sequential batches of 50. No validation, no retries, no checkpoint. Prints a JSON summary.
//   MIGRATE_API_KEY=... node bench/naive-import.mjs <messages.json> <baseUrl>
import { readFileSync } from 'node:fs';

const [file, baseUrl] = process.argv.slice(2);
const apiKey = process.env.MIGRATE_API_KEY ?? 'sandbox-key';
const started = process.hrtime.bigint();

const messages = JSON.parse(readFileSync(file, 'utf8'));
const parsedMs = Number(process.hrtime.bigint() - started) / 1e6;

let requests = 0;
let failed = 0;
for (let i = 0; i < messages.length; i += 50) {
  const body = { messages: {} };
  for (const m of messages.slice(i, i + 50)) body.messages[m.muid] = m;
  const res = await fetch(`${baseUrl}/v3.0/data_import/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apikey: apiKey },
    body: JSON.stringify(body),
  });
  await res.json();
  requests++;
  if (!res.ok) failed++;
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
process.stdout.write(`${JSON.stringify({ records: messages.length, requests, failed, parsedMs, ms })}\n`);
