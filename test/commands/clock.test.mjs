// The run's clock, in-process: the limiter, the retry loop, the import's waits and the CI lines' interval
// all keep the time of the clock the run is given, so a test's virtual clock makes a Retry-After of
// 30 s, a limiter at 60 a minute and the 5-second progress interval cost no real time.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { Agent } from 'undici';
import { RateLimiter } from '../../dist/http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../dist/http/retry-policy.js';
import { retryingRequest, sendToService } from '../../dist/http/retrying-request.js';
import { generatedWorkspace, runCli, sandbox, tempDir, writeConfig, writeGeneratedExport } from '../helpers.mjs';
import { startSyncFake, syncWorkspace } from '../sync-helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

/** An import through the CLI, in-process, on `clock`: its summary and the CI lines it drew on stderr. */
async function importWith(dir, clock) {
  const run = await runCli(['import', '--json'], { cwd: dir, clock });
  return { summary: JSON.parse(run.stdout), lines: run.stderr };
}

test('a run given a virtual clock waits on it: 429s asking 30 s each cost no real time', async (t) => {
  const sb = await sandbox({ faults: { spurious429: 0.3, retryAfterMs: 30_000 }, seed: 5 });
  t.after(() => sb.close());
  const { dir, counts } = await generatedWorkspace(sb, { users: 40, groups: 2, membersPerGroup: 5, messages: 200 });
  await writeConfig(dir, { ...(await configOf(dir)), retries: 20 });
  const clock = virtualClock();
  const start = clock.now();
  const { summary, lines } = await importWith(dir, clock);
  assert.equal(summary.status, 'completed', lines);
  assert.equal(sb.stats().perEntity.messages.stored, counts.messages);
  const storms = sb.stats().faults.spurious429;
  assert.ok(storms > 0, 'the seed met no 429: pick another');
  assert.match(lines, /retrying in 30(\.0)? s \(1\/20\): HTTP 429 \(rate limited\)/);
  // Every 429 asked for 30 s, and the run waited them out on its clock.
  assert.ok(clock.slept.filter((ms) => ms >= 30_000).length >= 1, `slept ${clock.slept}`);
  assert.ok(clock.now() - start >= 30_000, `the clock moved ${clock.now() - start} ms`);
});

test("the CI lines' 5-second interval and their rate and ETA are the run clock's", async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const { dir } = await generatedWorkspace(sb, { users: 10, groups: 1, membersPerGroup: 2, messages: 500 });
  // 60 requests a minute: each batch of 50 messages takes a virtual second, 10 in all.
  await writeConfig(dir, { ...(await configOf(dir)), requestsPerMinute: 60, concurrency: 1 });
  const clock = virtualClock(Date.UTC(2030, 0, 1));
  const { summary, lines } = await importWith(dir, clock);
  assert.equal(summary.status, 'completed', lines);
  // The lines' times are the clock's: ten virtual seconds of paced batches from its start.
  assert.ok(clock.now() - Date.UTC(2030, 0, 1) >= 9_000, `the clock moved ${clock.now() - Date.UTC(2030, 0, 1)} ms`);
  assert.match(lines, /^2030-01-01T00:00:0\dZ \[messages\] started: 500 records to read$/m);
  const progress = [...lines.matchAll(/\[messages\] (\d+)\/500 \(\d+%\), ([\d.]+) rec\/s, ETA (\d+)s: /g)];
  assert.ok(progress.length >= 1, lines);
  for (const [text, done, rate, eta] of progress) {
    // A batch of 50 a virtual second: the rate is near 50 a second, and the ETA what is left at it.
    assert.ok(Number(rate) >= 40 && Number(rate) <= 60, text);
    assert.ok(Math.abs(Number(eta) - (500 - Number(done)) / Number(rate)) <= 1, text);
  }
  assert.match(lines, /\[messages\] finished after (9|10|11)(\.\d)?s: 500\/500/);
});

test('held to requestsPerMinute on the run clock, a run against a sandbox at that rate meets no 429', async (t) => {
  // The sandbox's window and the run's limiter keep one virtual time: 33 requests 0.1 s apart, at once.
  const clock = virtualClock();
  const rate = 600;
  const sb = await sandbox({ requestsPerMinute: rate, now: () => clock.now() });
  t.after(() => sb.close());
  const dir = await tempDir();
  const { sources } = await writeGeneratedExport(dir, { users: 50, groups: 2, membersPerGroup: 10, messages: 1500 });
  await writeConfig(dir, { baseUrl: sb.url, sources, concurrency: 4, requestsPerMinute: rate });
  const { summary, lines } = await importWith(dir, clock);
  assert.equal(summary.status, 'completed', lines);
  const stats = sb.stats();
  assert.equal(stats.rateLimited, 0);
  assert.equal(stats.byStatus['429'] ?? 0, 0);
  // 33 requests at 10 a second: the run cannot have been faster than the limit allows.
  const spanMs = stats.lastRequestAt - stats.firstRequestAt;
  assert.ok(spanMs >= (((stats.requests - 1) * 60_000) / rate) * 0.95, `${stats.requests} requests in ${spanMs} ms`);
});

test('the retry loop waits out a storm of Retry-After: 30 on its clock, at once in real time', async (t) => {
  let arrivals = 0;
  const server = createServer((_req, res) => {
    arrivals++;
    if (arrivals <= 5) return void res.writeHead(429, { 'retry-after': '30' }).end('{}');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const dispatcher = new Agent();
  t.after(() => dispatcher.close());
  const host = `127.0.0.1:${port}`;
  const at = { dispatcher, origin: `http://${host}`, prefix: '/', host, route: { host }, headers: {}, timeoutMs: 5000 };
  const clock = virtualClock();
  const start = clock.now();
  const loop = {
    limiter: new RateLimiter(6000, clock),
    policy: DEFAULT_RETRY_POLICY,
    clock,
    stop: new AbortController().signal,
    random: () => 0.5,
  };
  const answer = await retryingRequest(loop, {
    subject: 'GET /x',
    route: { host },
    send: (signal) => sendToService(at, { method: 'GET', path: '/x' }, signal),
    judge: (a, kind) => (kind === 'ok' ? { done: a.text } : undefined),
  });
  assert.equal(answer, '{"ok":true}');
  assert.equal(arrivals, 6);
  // Five waits of at least 30 s each, one after another (the limiter paused for each too).
  assert.ok(clock.now() - start >= 150_000, `the clock moved ${clock.now() - start} ms`);
});

test("sync's interval is the run clock's: two rounds an hour apart cost no real time", async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startSyncFake(t, { world: { users: 3, channels: 2, messages: 10, seed: 11 } });
  const dir = await syncWorkspace(sb);
  const clock = virtualClock();
  const start = clock.now();
  const args = ['sync', 'sendbird', '--out', 'state/export', '--rounds', '2', '--interval', '3600', '--json'];
  const run = await runCli([...args, '--source-base-url', fake.url], { cwd: dir, env: fake.env, clock });
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.equal(summary.rounds.length, 2, run.stdout);
  assert.ok(clock.slept.includes(3_600_000), `slept ${clock.slept}`);
  assert.ok(clock.now() - start >= 3_600_000, `the clock moved ${clock.now() - start} ms`);
});

/** The config a workspace has, to change a key of it. */
async function configOf(dir) {
  const { readFile } = await import('node:fs/promises');
  return JSON.parse(await readFile(`${dir}/.migrate.config.json`, 'utf8'));
}
