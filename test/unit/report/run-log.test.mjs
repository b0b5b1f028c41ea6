// The run log's pieces against real files: secrets kept out, a 6-hour run of 20,000 samples drawn
// from at most 400 points a line, the run log API as verify and replay call it.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { configDigest, configWithoutSecrets } from '../../../dist/config/digest.js';
import { openRunLog } from '../../../dist/pipeline/run/run-log.js';
import { CheckpointStore } from '../../../dist/checkpoint/store.js';
import { loadReportData } from '../../../dist/report/html/report-data.js';
import { downsample, MAX_POINTS } from '../../../dist/report/html/report-charts.js';
import { renderHtml } from '../../../dist/report/html/render-html.js';
import { renderMarkdown } from '../../../dist/report/report-md.js';
import { tempDir } from '../../helpers.mjs';

test('config digest: secrets left out, the same settings give the same digest', () => {
  const config = {
    apiKey: 'sk_live_abcdef123456',
    baseUrl: 'https://user:pw@api.example.com/x',
    batchSize: 50,
    sources: { messages: { path: 'm.ndjson', s3: { accessToken: 'tok_123456', bucket: 'b' } } },
  };
  const clean = /** @type {any} */ (configWithoutSecrets(config));
  const text = JSON.stringify(clean);
  for (const secret of ['sk_live_abcdef123456', 'tok_123456', 'user:pw']) assert.ok(!text.includes(secret), secret);
  assert.equal(clean.sources.messages.s3.bucket, 'b');
  assert.equal(clean.baseUrl, 'https://api.example.com/x');
  const reordered = { batchSize: 50, sources: config.sources, baseUrl: config.baseUrl, apiKey: 'another-key-0000' };
  assert.equal(configDigest(reordered), configDigest(config), 'the key and the order of keys do not count');
  assert.notEqual(configDigest({ ...config, batchSize: 40 }), configDigest(config));
});

test('downsample: 20,000 samples to at most 400, counters still exact', () => {
  const samples = Array.from({ length: 20_000 }, (_, i) => ({
    t: 1_000_000 + i * 1080,
    records: i * 50,
    requests: i,
    retries: Math.floor(i / 100),
    rateLimited: Math.floor(i / 200),
    p50: 100,
    p95: i === 12_345 ? 9000 : 200,
  }));
  const kept = downsample(samples);
  assert.ok(kept.length <= MAX_POINTS && kept.length >= MAX_POINTS - 1, `${kept.length} points`);
  assert.deepEqual(kept.at(-1).records, samples.at(-1).records, 'the last sample is kept');
  assert.ok(
    kept.some((s) => s.p95 === 9000),
    'a spike of p95 survives',
  );
  assert.deepEqual(downsample(samples.slice(0, 10)), samples.slice(0, 10), 'a short run is drawn as it is');
});

test('a 6-hour run of 20,000 samples and a verify line: rendered quickly, small, <= 400 points a line', async () => {
  const dir = await tempDir();
  const checkpoint = path.join(dir, 'state', 'ckpt.json');
  const log = await openRunLog(checkpoint, {
    command: 'import',
    config: { baseUrl: 'https://app.example.com', appId: 'app1', apiKey: 'sk_secret_999999', requestsPerMinute: 600 },
  });
  const file = log.path;
  const start = (await readFile(file, 'utf8')).trim();
  assert.ok(!start.includes('sk_secret_999999'));
  const begin = JSON.parse(start).t;
  const lines = [`{"type":"phase-start","t":${begin + 1},"run":"${log.run}","entity":"messages","expected":1000000}`];
  for (let i = 1; i <= 20_000; i++) {
    const sample = { type: 'sample', t: begin + i * 1080, run: log.run, records: i * 50, requests: i, retries: 0 };
    lines.push(
      JSON.stringify({ ...sample, rateLimited: 0, p50: 90, p95: 140, rate: 600, phase: 'messages', phaseDone: i * 50 }),
    );
  }
  await writeFile(file, `${start}\n${lines.join('\n')}\n`);
  // What a real import writes first: the ledger, with this run as `running` until it ends.
  const ledger = await CheckpointStore.open(
    checkpoint,
    { target: { baseUrl: 'https://app.example.com' }, sourcesHash: 'x' },
    false,
  );
  ledger.recordRun('import', 'running');
  await ledger.save();
  const verify = await openRunLog(checkpoint, { command: 'verify' });
  const users = { expected: 10, present: 8, missing: 1, different: 1, extra: 0, beyondRetention: 2 };
  verify.event('verify-end', { entities: { users } });
  verify.end('completed', { exitCode: 0 });
  const began = performance.now();
  const data = await loadReportData({ checkpoint });
  const html = renderHtml(data);
  const took = performance.now() - began;
  assert.ok(took < 3000, `rendered in ${Math.round(took)} ms`);
  assert.ok(html.length < 600_000, `${html.length} characters`);
  const counts = [...html.matchAll(/data-points="(\d+)"/g)].map((m) => Number(m[1]));
  assert.ok(counts.length > 0 && Math.max(...counts) <= MAX_POINTS + 2, `points per line: ${Math.max(...counts)}`);
  assert.match(html, /data-figure="verify\.users\.missing">1</);
  assert.match(html, /data-figure="verify\.users\.beyondRetention">2</);
  assert.match(html, /6h00/, 'a long run is labelled in hours');
  assert.equal(data.state, 'incomplete', 'a run with no end line is not complete');
  assert.equal(data.interruptions, 1, 'a run with no end line counts as an interruption');
  assert.match(renderMarkdown(data), /^## Migration report\n\n\*\*Incomplete: the last import crashed\./);
});
