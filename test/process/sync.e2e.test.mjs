// `sync` as a process: the Sendbird fake (in this process) as the live source, the import sandbox as
// the service. Messages posted while sync runs arrive once; a sync killed with SIGKILL and started
// again loses and doubles nothing. `sync --final` and the nightly workflow: commands/sync-cutover.
// Build first: npm run build
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startSyncFake, syncWorkspace } from '../sync-helpers.mjs';
import { collect, readNdjson, sandbox, spawnCli, waitFor } from '../helpers.mjs';

// A second between rounds, on the wall clock: these syncs are processes (killed, or posted to while they
// run); sync's interval on a virtual clock is tested in-process (clock.test.mjs).
const syncArgs = (fake, extra = []) => [
  'sync',
  'sendbird',
  '--out',
  'state/export',
  '--source-base-url',
  fake.url,
  '--interval',
  '1',
  ...extra,
];

const syncCli = (dir, fake, extra) => spawnCli(syncArgs(fake, extra), { cwd: dir, env: fake.env });
const runSync = (dir, fake, extra) => collect(syncCli(dir, fake, extra));

/** The run log's `sync-round` lines. */
async function rounds(dir) {
  const lines = await readNdjson(path.join(dir, 'state', 'checkpoint.runs.ndjson')).catch(() => []);
  return lines.filter((l) => l.type === 'sync-round');
}

/** Every message the pull wrote, over every run folder: each id must be there once. */
async function pulledMessageIds(dir) {
  const root = path.join(dir, 'state', 'export');
  const ids = [];
  for (const entry of await readdir(root, { recursive: true })) {
    const file = path.join(root, entry);
    if (!/messages/i.test(entry) || !/\.(json|ndjson)$/.test(entry)) continue;
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/"message_id":\s*"?([^",}\s]+)/g)) ids.push(m[1]);
  }
  return ids;
}

/** The fake's messages, as its control route counts them. */
async function fakeMessages(fake) {
  const stats = await fake.call('GET', '/__fake/stats');
  return stats.messages;
}

/** Posts `n` messages to the fake, in its first channel, from one of that channel's members. */
async function postMessages(fake, n, text) {
  const world = await fake.call('GET', '/__fake/world');
  const channel = world.channels[0];
  const posted = [];
  for (let i = 0; i < n; i++) {
    // The first channel is public: every user of the world is in it.
    const body = { channelId: channel.id, senderId: 'user-0001', text: `${text} ${i}` };
    posted.push(await fake.call('POST', '/__fake/messages', body));
  }
  return posted;
}

const serviceMessages = (sb) => Object.keys(sb.records().messages).length;

test('messages posted to the source while sync runs all reach the service, once', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startSyncFake(t);
  const dir = await syncWorkspace(sb);
  const child = syncCli(dir, fake);
  const done = collect(child);
  await waitFor(async () => (await rounds(dir)).length >= 1, { timeoutMs: 60_000, what: 'the first round' });
  // The preset sends a Sendbird message with two files as two messages: the service's own count.
  const before = serviceMessages(sb);
  assert.ok(before >= (await fakeMessages(fake)));
  await postMessages(fake, 5, 'while syncing');
  const total = await fakeMessages(fake);
  await waitFor(() => serviceMessages(sb) === before + 5, {
    timeoutMs: 60_000,
    what: 'the posted messages on the service',
  });
  // A round after them has verified them: the lag is back to 0 and nothing is left to cross.
  const across = Date.now();
  await waitFor(async () => (await rounds(dir)).some((r) => r.t > across && r.notAcross === 0), {
    timeoutMs: 60_000,
    what: 'a round that verified the 5',
  });
  child.kill('SIGTERM');
  const run = await done;
  assert.ok(run.code === 0 || run.code === 130, run.stderr);
  const lines = await rounds(dir);
  assert.equal(
    lines.reduce((n, r) => n + r.imported, 0) - lines[0].imported,
    5,
    'the rounds after the first imported the 5, and nothing else',
  );
  const last = lines.at(-1);
  assert.equal(last.lagMs, 0);
  assert.equal(last.newestPulledAt, last.newestVerifiedAt);
  assert.ok(Date.parse(last.newestPulledAt) >= Date.parse(lines[0].newestPulledAt));
  assert.match(run.stderr, /round \d+: imported 5, already there 0, rejected 0; verified \d+ of \d+; lag 0\.0 s/);
  // Once: the service stored each message once, and the pull wrote each once over all its folders.
  assert.equal(sb.stats().perEntity.messages.alreadyExists, 0);
  const ids = await pulledMessageIds(dir);
  assert.equal(ids.length, total);
  assert.equal(new Set(ids).size, total);
  // Secrets: the source's token never reaches the output or the state.
  for (const value of Object.values(fake.env)) {
    if (String(value).length < 8) continue;
    assert.equal(run.stdout.includes(value) || run.stderr.includes(value), false);
    const log = await readFile(path.join(dir, 'state', 'checkpoint.runs.ndjson'), 'utf8');
    assert.equal(log.includes(value), false);
  }
});

test('a sync killed with SIGKILL and started again loses and doubles nothing', async (t) => {
  // Real time: the latencies keep the first round's import going for the SIGKILL to land mid-way.
  const sb = await sandbox({ latencyMs: 30 });
  t.after(() => sb.close());
  const fake = await startSyncFake(t, { latencyMs: 20 });
  const dir = await syncWorkspace(sb);
  const child = syncCli(dir, fake, ['--batch-size', '5', '--concurrency', '1']);
  const done = collect(child);
  // Killed mid-import of the first round: some messages sent, not all.
  await waitFor(() => sb.stats().perEntity.messages.stored >= 10, { timeoutMs: 60_000, what: 'messages sent' });
  child.kill('SIGKILL');
  await done;
  const sent = serviceMessages(sb);
  await postMessages(fake, 3, 'after the kill');
  const total = await fakeMessages(fake);
  const again = await runSync(dir, fake, ['--rounds', '1']);
  assert.equal(again.code, 0, again.stderr);
  assert.ok(serviceMessages(sb) > sent + 3, 'the rest of the first round and the 3 new ones');
  // Nothing lost: the cutover's full verify finds every record of the export on the service.
  const final = await runSync(dir, fake, ['--final']);
  assert.equal(final.code, 0, final.stderr);
  assert.match(final.stdout, /Cutover complete/);
  // Nothing doubled: the pull wrote each message once over its folders (the service keys by id).
  const ids = await pulledMessageIds(dir);
  assert.equal(ids.length, total, 'every message written once over the pull folders');
  assert.equal(new Set(ids).size, total);
  // Round numbers go on from the run log: the killed round wrote none.
  assert.deepEqual(
    (await rounds(dir)).map((r) => [r.round, r.final]),
    [
      [1, false],
      [2, true],
    ],
  );
});
