// Faults survived: the sandbox injects 500s (before and after storing), spurious 429s, dropped
// connections and latency spikes past the timeout; the import still lands every record exactly once.
import assert from 'node:assert/strict';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  collect,
  readNdjson,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitForRequests,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

test('all faults together: every record present exactly once, exit 0, retries counted', async () => {
  const sb = await sandbox({
    seed: 42,
    faults: {
      fail500BeforeStore: 0.1,
      fail500AfterStore: 0.05,
      spurious429: 0.05,
      // The 429s ask for no wait, and the run's backoff is on a virtual clock: the faults cost no real time.
      retryAfterMs: 0,
      dropConnection: 0.02,
      slowRate: 0.03,
      slowMs: 1500,
    },
  });
  try {
    const dir = await tempDir();
    const { counts, sources } = await writeGeneratedExport(dir, {
      users: 300,
      groups: 10,
      membersPerGroup: 30,
      messages: 4000,
    });
    await writeConfig(dir, {
      baseUrl: sb.url,
      sources,
      concurrency: 4,
      requestsPerMinute: 1e9,
      timeoutMs: 700,
      retries: 10,
    });
    const run = await runCli(['import', '--json'], { cwd: dir, clock: virtualClock() });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    const stats = sb.stats();
    for (const [entity, n] of Object.entries(counts)) assert.equal(stats.perEntity[entity].stored, n, entity);
    for (const f of ['fail500BeforeStore', 'fail500AfterStore', 'spurious429', 'drop', 'slow'])
      assert.ok(stats.faults[f] > 0, `${f} injected`);
    const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
    assert.ok(
      summary.totals.retries >= faults - stats.faults.poison,
      `summary counts ${summary.totals.retries} retries for ${faults} faults`,
    );
    // 500-after-store and timeouts are ambiguous: the retry finds the record there and counts it as present.
    assert.ok(summary.totals.alreadyPresent > 0);
    assert.equal(
      summary.totals.imported + summary.totals.alreadyPresent,
      Object.values(counts).reduce((a, b) => a + b, 0),
    );
    assert.deepEqual(await readNdjson(path.join(dir, 'migrate-rejects.ndjson')), []);
  } finally {
    await sb.close();
  }
});

test('a retry budget that runs out stops the run: clear message, saved checkpoint, fatal exit code', async () => {
  const sb = await sandbox({ faults: { fail500BeforeStore: 1 } });
  try {
    const dir = await tempDir();
    const { sources } = await writeGeneratedExport(dir, { users: 120, groups: 2, membersPerGroup: 2, messages: 10 });
    await writeConfig(dir, { baseUrl: sb.url, sources, retries: 2, requestsPerMinute: 1e9 });
    const run = await runCli(['import'], { cwd: dir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /gave up after 2 retries/);
    assert.match(run.stderr, /run the same command again to resume/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
    const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
    assert.equal(checkpoint.tool, 'chat-migrate');
    // A service that fails everything is not a poison record: nothing was put in the rejects file.
    assert.deepEqual(await readNdjson(path.join(dir, 'migrate-rejects.ndjson')), []);
  } finally {
    await sb.close();
  }
});

test('a poison record is isolated by splitting the batch: only it goes to the rejects file', async () => {
  const sb = await sandbox({ faults: { poisonIdPattern: '^msg137$' } });
  try {
    const dir = await tempDir();
    const { counts, sources } = await writeGeneratedExport(dir, {
      users: 20,
      groups: 2,
      membersPerGroup: 5,
      messages: 400,
    });
    await writeConfig(dir, { baseUrl: sb.url, sources, requestsPerMinute: 1e9 });
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(sb.stats().perEntity.messages.stored, counts.messages - 1);
    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    assert.deepEqual(
      rejects.map((r) => [r.id, r.code, r.line]),
      [['msg137', 'ERR_EXCEPTION', 138]],
    );
  } finally {
    await sb.close();
  }
});

test(
  'a source file removed while the run reads the one before it: ' +
    'a clear error naming it, the checkpoint kept; the resume completes',
  async () => {
    const sb = await sandbox({ latencyMs: 60 });
    try {
      const dir = await tempDir();
      const message = (i) =>
        JSON.stringify({
          muid: `m${i}`,
          sender: 'u1',
          receiverType: 'user',
          receiver: 'u2',
          sentAt: 1_650_000_000 + i,
          type: 'text',
          data: { text: `hi ${i}` },
        });
      const file = (from, to) => `${Array.from({ length: to - from }, (_, k) => message(from + k)).join('\n')}\n`;
      await writeFile(path.join(dir, 'users.ndjson'), '{"uid":"u1","name":"One"}\n{"uid":"u2","name":"Two"}\n');
      // 30 batches at 60 ms, two at a time, before the reader reaches the second file: ~0.9 s to remove it
      // once the first batch is answered, where the removal takes a few milliseconds.
      await writeFile(path.join(dir, 'messages-1.ndjson'), file(0, 1500));
      await writeFile(path.join(dir, 'messages-2.ndjson'), file(1500, 1600));
      await writeConfig(dir, {
        baseUrl: sb.url,
        concurrency: 2,
        requestsPerMinute: 1e9,
        sources: { users: { path: 'users.ndjson' }, messages: { path: 'messages-*.ndjson' } },
      });
      const child = spawnCli(['import', '--json'], { cwd: dir });
      const done = collect(child);
      await waitForRequests(sb, 1, { entity: 'messages' });
      const second = await readFile(path.join(dir, 'messages-2.ndjson'));
      await unlink(path.join(dir, 'messages-2.ndjson'));
      const run = await done;
      assert.equal(run.code, 1, run.stderr);
      const summary = JSON.parse(run.stdout);
      assert.equal(summary.error.code, 'INPUT_NOT_FOUND');
      assert.match(summary.error.message, /cannot open messages-2\.ndjson: file not found/);
      assert.doesNotMatch(run.stderr, /at .*\.js:\d+|this is a bug/);
      // The first file's batches settled and were saved: the resume sends none of them again.
      await writeFile(path.join(dir, 'messages-2.ndjson'), second);
      const resumed = await runCli(['import', '--json'], { cwd: dir });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(sb.stats().perEntity.messages.stored, 1600);
      assert.equal(sb.stats().perEntity.messages.alreadyExists, 0);
    } finally {
      await sb.close();
    }
  },
);
