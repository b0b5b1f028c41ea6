// Memory of the sandbox holding N messages, and the time of reading them all back by cursor:
// `node bench/sandbox-messages-rss.mjs [--messages 1000000] [--no-keep-records]`. Prints JSON.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BIN, ROOT, SANDBOX_KEY } from './children.mjs';
import { messageRecord, muidOf } from './generate.mjs';
import { mulberry32 } from '../dist/sandbox/index.js';

const { values: opts } = parseArgs({
  options: { messages: { type: 'string', default: '1000000' }, 'no-keep-records': { type: 'boolean' } },
});
const total = Number(opts.messages);
const args = [BIN, 'sandbox', '--port', '0', '--json', '--api-key', SANDBOX_KEY];
if (opts['no-keep-records']) args.push('--no-keep-records');
const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => {
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).url);
  });
});
const memory = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (name) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))[1]);
  return { rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) };
};
const before = memory();

const rand = mulberry32(7);
const records = (from, to) => {
  const body = {};
  for (let i = from; i < to; i++) body[muidOf(i)] = messageRecord(i, 10_000, 1_000, rand);
  return JSON.stringify({ messages: body });
};
const headers = { apikey: SANDBOX_KEY, 'content-type': 'application/json' };
let next = 0;
const started = Date.now();
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (next < total) {
      const from = next;
      next = Math.min(total, next + 50);
      const res = await fetch(`${url}/v3.0/data_import/messages`, {
        method: 'POST',
        headers,
        body: records(from, next),
      });
      if (res.status !== 200) throw new Error(`import answered ${res.status}`);
      await res.arrayBuffer();
    }
  }),
);
const importSeconds = (Date.now() - started) / 1000;
global.gc?.();
const held = memory();

const readStart = Date.now();
let read = 0;
let cursor = '';
for (;;) {
  const res = await fetch(`${url}/v3/messages?limit=1000${cursor}`, { headers: { apikey: SANDBOX_KEY } });
  const page = /** @type {any} */ (await res.json());
  read += page.data.length;
  if (!page.meta.next || page.data.length < 1000) break;
  cursor = `&id=${page.meta.next.id}&affix=append`;
}
const readSeconds = (Date.now() - readStart) / 1000;
const after = memory();
child.kill('SIGTERM');
const result = {
  messages: total,
  keepRecords: !opts['no-keep-records'],
  emptyRssMB: before.rssMB,
  heldRssMB: held.rssMB,
  afterReadRssMB: after.rssMB,
  peakRssMB: after.peakMB,
  bytesPerMessage: Math.round(((held.rssMB - before.rssMB) * 1024 * 1024) / total),
  importSeconds,
  read,
  readSeconds,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
