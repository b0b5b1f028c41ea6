// What a run says in a CI log or a pipe, and in its summary: network errors that name the host and the
// cause, retries as they happen, counts that are true, lines with time, total, rate and ETA, plurals.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import {
  API_KEY,
  collect,
  generatedWorkspace,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitForRequests,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

/** A loopback port nobody listens on: taken, then given back. */
async function closedPort() {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((r) => server.close(r));
  return port;
}

async function smallExport(config) {
  const dir = await tempDir();
  const { sources } = await writeGeneratedExport(dir, { users: 5, groups: 1, membersPerGroup: 1, messages: 1 });
  await writeConfig(dir, { sources, requestsPerMinute: 1e9, ...config });
  return dir;
}

const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';

test('unreachable: the error names host and cause, each retry shows, the summary counts every try', async () => {
  const port = await closedPort();
  const dir = await smallExport({ baseUrl: `http://127.0.0.1:${port}`, retries: 2 });
  const run = await runCli(['import'], { cwd: dir });
  assert.equal(run.code, 1, run.stderr);
  const where = `127\\.0\\.0\\.1:${port}`;
  const error = `users: cannot reach ${where}: connection refused \\(ECONNREFUSED ${where}\\); gave up after 2 retries`;
  assert.match(run.stderr, new RegExp(error));
  // Each retry, as it starts to wait: with the time, the wait, the count and the cause.
  for (const n of [1, 2]) {
    const retry = `^${TIME} \\[users\\] retrying in [\\d.]+ s \\(${n}/2\\): ECONNREFUSED ${where}$`;
    assert.match(run.stderr, new RegExp(retry, 'm'));
  }
  // Three requests were made (the first and two retries), though the batch never came back.
  assert.match(run.stderr, /^requests +3$/m);
  assert.match(run.stderr, /^retries +2$/m);
  const json = await runCli(['import', '--json'], { cwd: dir });
  const summary = JSON.parse(json.stdout);
  assert.equal(summary.error.code, 'REMOTE_RETRIES_EXHAUSTED');
  assert.deepEqual([summary.totals.requests, summary.totals.retries], [3, 2]);
  for (const out of [run.stdout, run.stderr, json.stdout, json.stderr]) assert.ok(!out.includes(API_KEY));
});

test('a service host that does not resolve stops import and verify at once: named, with the fix', async () => {
  // No retries (8 are allowed, ~60 s of backoff): a wrong appId or region cannot mend itself.
  const dir = await smallExport({ baseUrl: 'https://nosuchapp.api-nowhere.invalid' });
  // A machine without a resolver says EAI_AGAIN rather than ENOTFOUND: either way the host is named.
  const cause = /(no such host \(ENOTFOUND\)|the name lookup failed for now \(EAI_AGAIN\))/.source;
  for (const command of ['import', 'verify']) {
    const started = Date.now();
    const run = await runCli([command], { cwd: dir });
    const elapsed = Date.now() - started;
    assert.equal(run.code, 1, run.stderr);
    const named = `cannot reach nosuchapp\\.api-nowhere\\.invalid: ${cause}: check appId and region \\(baseUrl\\)`;
    assert.match(run.stderr, new RegExp(`${named} \\[REMOTE_HOST_NOT_FOUND\\]`), command);
    assert.doesNotMatch(run.stderr, /retrying in/);
    assert.ok(elapsed < 10_000, `${command} took ${elapsed} ms`);
  }
});

test('429 and 5xx answers show as retries in the log, at most a line a second, and are counted', async () => {
  // The 429s ask for no wait, and the run's waits are on a virtual clock: the storm costs no real time.
  const faults = { spurious429: 0.2, fail500BeforeStore: 0.2, retryAfterMs: 0 };
  const sb = await sandbox({ faults, seed: 7 });
  try {
    const sizes = { users: 100, groups: 4, membersPerGroup: 10, messages: 500 };
    const { dir, counts } = await generatedWorkspace(sb, sizes);
    const run = await runCli(['import', '--retries', '20'], { cwd: dir, clock: virtualClock() });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(sb.stats().perEntity.messages.stored, counts.messages);
    const retryLines = run.stderr.split('\n').filter((l) => / retrying in /.test(l));
    assert.ok(
      retryLines.some((l) => /\(\d+\/20\): HTTP 429 \(rate limited\)/.test(l)),
      retryLines.join('\n'),
    );
    assert.ok(
      retryLines.some((l) => /\(\d+\/20\): HTTP 500/.test(l)),
      retryLines.join('\n'),
    );
    const retries = Number(/^retries .* (\d+)$/m.exec(run.stdout)[1]);
    assert.ok(retries >= retryLines.length, `${retries} retries counted, ${retryLines.length} lines`);
  } finally {
    await sb.close();
  }
});

test("CI lines carry the time, done/total and percent, rate and ETA, in the summary's words", async () => {
  const N = 600;
  // Latency, so that a real Ctrl+C lands mid-messages (the first run is a process for it).
  const sb = await sandbox({ latencyMs: 150 });
  try {
    const { dir } = await generatedWorkspace(sb, { users: 20, groups: 2, membersPerGroup: 5, messages: N });
    const child = spawnCli(['import'], { cwd: dir });
    const done = collect(child);
    await waitForRequests(sb, 4, { entity: 'messages' });
    child.kill('SIGINT');
    assert.equal((await done).code, 130);
    // The resume passes over what the first run did in moments: that must not count as speed. At 60
    // requests a minute on a virtual clock, its batches are a second apart: progress lines every 5 s.
    const clock = virtualClock();
    const run = await runCli(['import', '--requests-per-minute', '60'], { cwd: dir, clock });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`^${TIME} \\[messages\\] started: ${N} records to read$`, 'm'));
    const figures = `(\\d+)/${N} \\((\\d+)%\\), ([\\d.]+) rec/s(?:, ETA (?:(\\d+)m)?(\\d+)s)?`;
    const line = new RegExp(`^${TIME} \\[messages\\] (?:finished after ([\\d.]+)s: )?${figures}: (.*)$`, 'gm');
    const lines = [...run.stderr.matchAll(line)];
    assert.ok(lines.length >= 2, run.stderr);
    for (const [text, took, doneCount, percent, rate, etaMinutes = '0', etaSeconds, outcome] of lines) {
      const eta = etaSeconds === undefined ? undefined : Number(etaMinutes) * 60 + Number(etaSeconds);
      assert.equal(Number(percent), Math.floor((Number(doneCount) / N) * 100), text);
      const earlier = Number(/done earlier (\d+)/.exec(outcome)?.[1]);
      assert.ok(earlier > 0, text);
      if (eta !== undefined) {
        // The ETA is what is left at the rate shown; the rate leaves out what an earlier run did.
        const expected = (N - Number(doneCount)) / Number(rate);
        const why = `${text}: ETA ${eta}s, expected ${expected.toFixed(1)}s`;
        assert.ok(Math.abs(eta - expected) <= 1 + expected * 0.05, why);
      }
      if (took !== undefined) {
        assert.equal(outcome, `imported ${N - earlier}, done earlier ${earlier}`);
        const expected = (N - earlier) / Number(took);
        const why = `${text}: rate ${rate}, expected about ${expected.toFixed(1)}`;
        assert.ok(Math.abs(Number(rate) - expected) <= expected * 0.1, why);
      }
    }
  } finally {
    await sb.close();
  }
});

test('counts take their plural forms: one rejected record, one error', async () => {
  const sb = await sandbox({ faults: { poisonIdPattern: '^msg7$' } });
  try {
    const { dir } = await generatedWorkspace(sb, { users: 10, groups: 1, membersPerGroup: 2, messages: 20 });
    const run = await runCli(['import'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stdout, /but 1 record was rejected: see /);
    assert.match(run.stdout, /^rejected +0 +0 +0 +1 +1$/m);
  } finally {
    await sb.close();
  }
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.ndjson'), '{"uid":"u1","name":"A"}\n{"uid":"bad id!","name":"B"}\n');
  await writeConfig(dir, { sources: { users: { path: 'users.ndjson' } } });
  const validate = await runCli(['validate'], { cwd: dir });
  assert.equal(validate.code, 3, validate.stderr);
  assert.match(validate.stdout, /^ {2}users +2 records, 1 error, 0 warnings, 0 skipped$/m);
  assert.match(validate.stdout, /^FAILED: 2 records read, 1 error, 0 warnings$/m);
});
