// `pull stream` against its fake where Stream's paging bites: a thread longer than one replies page
// (unsorted, Stream answers the latest), more channels than Query Channels' offset reaches, more
// members than Query Members' offset allows, and a channel deleted since an earlier pull.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { manualClock, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, tempDir } from '../helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

const FAST = ['--source-requests-per-minute', '1000000'];

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'stream', options);

// A virtual clock: the run's own waits (its pacing, its reporters) cost no real time.
const pull = (fake, dir, extra = []) =>
  runCli(['pull', 'stream', '--out', 'out', '--base-url', fake.url, ...FAST, ...extra], {
    cwd: dir,
    env: fake.env,
    clock: virtualClock(),
  });

/** Every line of every file the pulls wrote into `out`. */
async function linesIn(out) {
  const found = [];
  for (const rel of await readdir(out, { recursive: true })) {
    if (!rel.endsWith('.ndjson')) continue;
    const text = await readFile(path.join(out, rel), 'utf8');
    for (const line of text.split('\n').filter(Boolean)) found.push(JSON.parse(line));
  }
  return found;
}

const requestsTo = (stats, pattern) =>
  Object.entries(stats.byPath).reduce((n, [p, count]) => (pattern.test(p) ? n + count : n), 0);

test('a thread of 301 replies: all of them, oldest first by sort, though Stream answers the latest', async (t) => {
  const clock = manualClock(Date.UTC(2026, 10, 2));
  const fake = await startFake(t, { world: { users: 4, channels: 2, messages: 6, seed: 3 }, now: clock.now });
  const world = await fake.describe();
  const general = world.channels[0].id;
  // Added to the fake's world in this process (301 control requests would cost seconds); at one
  // instant of its clock, the messages still take increasing times and ids.
  const parent = fake.world.addMessage({ channelId: general, senderId: 'user-0001', text: 'a long thread' });
  for (let i = 0; i < 301; i++)
    fake.world.addMessage({ channelId: general, senderId: 'user-0002', text: `reply ${i}`, parentId: parent.id });
  const dir = await tempDir('cm-pull-stream-thread-');
  const run = await pull(fake, dir);
  assert.equal(run.code, 0, run.stderr);
  const replies = (await linesIn(path.join(dir, 'out'))).filter(
    (l) => l.type === 'message' && l.data.parent_id === parent.id,
  );
  assert.equal(new Set(replies.map((r) => r.data.id)).size, replies.length, 'a reply written twice');
  assert.equal(replies.length, 301, 'every reply of the thread');
});

test('1,031 channels: listed by created_at past the offset cap of 1000, each once, no page asked twice', {
  timeout: 30_000,
}, async (t) => {
  const fake = await startFake(t, { world: { users: 3, channels: 1031, messages: 40, seed: 2 } });
  const dir = await tempDir('cm-pull-stream-channels-');
  // The list is what is under test: the pull is stopped (its credentials refused) once it is written,
  // sparing a thousand channels' members and messages. One page of users, then 35 of channels.
  const pages = Math.ceil(1031 / 30);
  fake.refuseAfter(1 + pages);
  const run = await pull(fake, dir);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /refused the credentials/);
  const channels = (await linesIn(path.join(dir, 'out'))).filter((l) => l.type === 'channel');
  // Direct channels of the same few people share a cid in the fake: their creation tells them apart.
  const keys = new Set(channels.map((c) => `${c.data.cid}@${c.data.created_at}`));
  assert.equal(keys.size, channels.length, 'a channel written twice');
  assert.equal(channels.length, 1031, 'every channel');
  assert.equal(requestsTo(fake.stats(), /^\/channels$/), pages, 'one request a page of 30');
});

test('a channel of 10,101 members: every member once, though Query Members stops at offset 10,000', {
  timeout: 30_000,
}, async (t) => {
  // The first channel is a public one everyone is in.
  const fake = await startFake(t, { world: { users: 10_101, channels: 1, messages: 5, seed: 4 } });
  const dir = await tempDir('cm-pull-stream-members-');
  const run = await pull(fake, dir);
  assert.equal(run.code, 0, run.stderr);
  const members = (await linesIn(path.join(dir, 'out'))).filter((l) => l.type === 'member');
  assert.equal(new Set(members.map((m) => m.data.user_id)).size, members.length, 'a member written twice');
  assert.equal(members.length, 10_101);
});

test('members who joined at one instant, more than a page of them: each once, none left out', async (t) => {
  // The fake's clock stands still: the 150 members added join at the same millisecond.
  const clock = manualClock(Date.UTC(2026, 10, 2));
  const fake = await startFake(t, { world: { users: 3, channels: 1, messages: 5, seed: 4 }, now: clock.now });
  const channel = (await fake.describe()).channels[0];
  for (let i = 0; i < 150; i++) {
    const user = fake.world.addUser({ name: `joiner-${i}` });
    fake.world.addMember(channel.id, user.id);
  }
  const dir = await tempDir('cm-pull-stream-ties-');
  const run = await pull(fake, dir);
  assert.equal(run.code, 0, run.stderr);
  const members = (await linesIn(path.join(dir, 'out'))).filter((l) => l.type === 'member');
  assert.equal(new Set(members.map((m) => m.data.user_id)).size, members.length, 'a member written twice');
  assert.equal(members.length, channel.members + 150);
});

test('a channel deleted since an earlier pull: later pulls name it, skip it and read the rest', async (t) => {
  const fake = await startFake(t, { world: { users: 6, channels: 4, messages: 80, seed: 6 } });
  const dir = await tempDir('cm-pull-stream-gone-');
  assert.equal((await pull(fake, dir)).code, 0);
  const [, gone, kept] = (await fake.describe()).channels;
  await fake.call('DELETE', `/__fake/channels/${gone.id}`);
  await fake.post('messages', { channelId: kept.id, senderId: 'user-0001', text: 'after the deletion' });
  for (const round of [1, 2]) {
    const run = await pull(fake, dir, ['--since', 'auto']);
    assert.equal(run.code, 0, `delta ${round}\n${run.stderr}`);
    assert.match(run.stderr, new RegExp(`gone since an earlier pull[^\\n]*:${gone.id}`));
  }
  const fresh = (await linesIn(path.join(dir, 'out'))).filter(
    (l) => l.type === 'message' && l.data.text?.startsWith('after the deletion'),
  );
  assert.equal(fresh.length, 1, 'the other channels are still read');
});

/** A server token for the fake, as the pull signs one: HS256 over `{"server": true}` with the app's secret. */
function serverToken(secret) {
  const part = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const signed = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ server: true })}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

test('a delta where Stream refuses search for a channel type: the other channels are read, those named', async (t) => {
  const fake = await startFake(t, { world: { users: 6, channels: 4, messages: 80, seed: 6 } });
  const dir = await tempDir('cm-pull-stream-search-');
  assert.equal((await pull(fake, dir)).code, 0);
  // Search turned off for the `livestream` type (public channels), as its owner can on Stream's dashboard.
  const res = await fetch(`${fake.url}/channeltypes/livestream?api_key=${fake.env.STREAM_API_KEY}`, {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      authorization: serverToken(fake.env.STREAM_API_SECRET),
      'stream-auth-type': 'jwt',
    },
    body: JSON.stringify({ search: false }),
  });
  assert.equal(res.status, 200);
  const channels = (await fake.describe()).channels;
  const open = channels.find((c) => c.kind === 'public');
  const other = channels.find((c) => c.kind === 'private');
  for (const c of [open, other])
    await fake.post('messages', { channelId: c.id, senderId: 'user-0001', text: `new in ${c.kind}` });
  const run = await pull(fake, dir, ['--since', 'auto']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`search refused for 1 channel[^\\n]*livestream:${open.id} \\(Search failed`));
  const fresh = (await linesIn(path.join(dir, 'out'))).filter(
    (l) => l.type === 'message' && l.data.text?.startsWith('new in'),
  );
  assert.deepEqual(
    fresh.map((l) => l.data.text),
    ['new in private'],
  );
});
