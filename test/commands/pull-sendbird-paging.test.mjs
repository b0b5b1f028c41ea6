// `pull sendbird` against its fake where Sendbird's lists and rate headers bite: deactivated members a
// channel's members route leaves out by default, a page token that expired while the pull was stopped,
// and X-RateLimit-Reset given as seconds left, not a point in time.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { manualClock, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, tempDir } from '../helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'sendbird', options);

/** A virtual clock unless the test gives one: the run's own waits cost no real time. */
async function pull(fake, dir, args = [], clock = virtualClock()) {
  const run = await runCli(['pull', 'sendbird', '--out', 'out', '--base-url', fake.url, '--json', ...args], {
    cwd: dir,
    env: fake.env,
    clock,
  });
  return { ...run, summary: run.code === 0 ? JSON.parse(run.stdout) : undefined };
}

/** Every JSON document the pulls wrote under `out`. */
async function docsIn(out) {
  const docs = [];
  for (const rel of await readdir(out, { recursive: true }))
    if (rel.endsWith('.json')) docs.push(JSON.parse(await readFile(path.join(out, rel), 'utf8')));
  return docs;
}

test("a large group channel's deactivated members are pulled too (member_active_mode_filter=all)", async (t) => {
  const fake = await startFake(t, { world: { users: 60, channels: 12, messages: 60, seed: 2 } });
  const byId = new Map(fake.world.users.map((u) => [u.id, u]));
  // Beyond the ten members a channel object shows, those come from the members route.
  const open = fake.world.channels.find((c) => c.kind === 'public');
  const large = fake.world.channels.filter(
    (c) => c !== open && c.members.length > 10 && c.members.some((m) => byId.get(m.userId)?.deactivated),
  );
  assert.ok(large.length > 0, 'the world has a large channel with a deactivated member');
  const dir = await tempDir('cm-pull-sb-members-');
  const run = await pull(fake, dir, ['--source-requests-per-minute', '100000']);
  assert.equal(run.code, 0, run.stderr);
  const pulled = new Map();
  for (const doc of await docsIn(path.join(dir, 'out')))
    for (const c of doc.group_channels ?? []) pulled.set(c.channel_url, c.members.map((m) => m.user_id).sort());
  for (const c of large) assert.deepEqual(pulled.get(c.id), c.members.map((m) => m.userId).sort(), c.id);
});

test('a page token that expired while the pull was stopped: the resume reads on, writing nobody twice', async (t) => {
  const clock = manualClock();
  const fake = await startFake(t, { world: { users: 250, channels: 2, messages: 20, seed: 3 }, now: clock.now });
  const dir = await tempDir('cm-pull-sb-expired-');
  // The first page of users is written with the next page's token; then the token is refused.
  fake.refuseAfter(1);
  assert.equal((await pull(fake, dir)).code, 1);
  fake.refuseAfter(undefined);
  clock.advance(2 * 60 * 60 * 1000);
  for (const round of [1, 2]) {
    const run = await pull(fake, dir);
    if (run.code === 0) break;
    assert.fail(`resume ${round} failed\n${run.stderr}`);
  }
  const users = (await docsIn(path.join(dir, 'out'))).flatMap((d) => [
    ...(d.active_users ?? []),
    ...(d.deactivated_users ?? []),
  ]);
  assert.equal(new Set(users.map((u) => u.user_id)).size, users.length, 'a user written twice');
  assert.equal(users.length, 250, 'every user');
});

test('X-RateLimit-Reset is the seconds left: the pull waits for it when none remain, meeting no 429', async (t) => {
  const clock = virtualClock();
  const fake = await startFake(t, {
    world: { users: 8, channels: 10, messages: 100, seed: 5 },
    requestsPerMinute: 5,
    now: () => clock.now(),
  });
  const dir = await tempDir('cm-pull-sb-reset-');
  // One request at a time: those in flight together would all start as a slot frees.
  const args = ['--source-requests-per-minute', '100000', '--source-concurrency', '1'];
  const run = await pull(fake, dir, args, clock);
  assert.equal(run.code, 0, run.stderr);
  const stats = fake.stats();
  assert.ok(stats.requests > 10, `${stats.requests} requests: more than two windows of 5`);
  assert.equal(stats.rateLimited, 0, 'no request went past the budget');
});
