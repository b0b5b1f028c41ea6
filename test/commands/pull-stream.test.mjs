// `pull stream`: Stream Chat's server API into the channel export v2 layout, against its fake (in this
// process) and the import sandbox: Stream's paging (search for deltas, threads), its server token, its
// rate headers and its CDN links that expire; and the stream preset reading the v2 layout the pull writes
// (a `!members-` pair is user-to-user).
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toVendorId } from '../../dist/systems/preset.js';
import { manualClock, pullStoppedThenResumed, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { AWS_ENV, BUCKET, PUBLIC, startBucket } from '../media-servers.mjs';
import { byId, plan, readPlans } from '../presets-helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

const FAST = ['--source-requests-per-minute', '60000'];

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'stream', options);

const pullArgs = (fake, out, extra = []) => ['pull', 'stream', '--out', out, '--base-url', fake.url, ...FAST, ...extra];

/** Every line of every file the pulls wrote, with its run folder and file. */
async function linesIn(out) {
  const found = [];
  for (const run of (await readdir(out)).filter((n) => /^(full|delta)-/.test(n))) {
    for (const rel of await readdir(path.join(out, run), { recursive: true })) {
      if (!rel.endsWith('.ndjson')) continue;
      const text = await readFile(path.join(out, run, rel), 'utf8');
      for (const line of text.split('\n').filter(Boolean)) found.push({ run, rel, ...JSON.parse(line) });
    }
  }
  return found;
}

/** The message lines, each id at most once across every run folder: nothing written twice. */
function messagesOnce(lines) {
  const messages = lines.filter((l) => l.type === 'message');
  const ids = new Set(messages.map((m) => m.data.id));
  assert.equal(ids.size, messages.length, 'a message written twice');
  return messages;
}

/** Requests to the fake whose path matches, from its stats. */
const requestsTo = (stats, pattern) =>
  Object.entries(stats.byPath).reduce((n, [p, count]) => (pattern.test(p) ? n + count : n), 0);

async function importFrom(dir, from, extra = [], env = {}) {
  const r = await runCli(['import', '--preset', 'stream', '--from', from, '--json', ...extra], { cwd: dir, env });
  assert.ok(r.code === 0, `import exit ${r.code}\n${r.stderr}\n${r.stdout.slice(-2000)}`);
  return JSON.parse(r.stdout);
}

const lines = (items) => `${items.map((i) => JSON.stringify(i)).join('\n')}\n`;

test('the preset reads a v2 export: a two-member !members- channel from member lines is user-to-user', async () => {
  const dir = await tempDir();
  const dm = {
    type: 'messaging',
    id: '!members-Xq3',
    cid: 'messaging:!members-Xq3',
    created_at: '2026-01-02T00:00:00Z',
  };
  const team = {
    type: 'messaging',
    id: 'team',
    cid: 'messaging:team',
    name: 'Team',
    created_at: '2026-01-02T00:00:00Z',
  };
  const user = (id) => ({ type: 'user', data: { id, name: id.toUpperCase(), created_at: '2026-01-01T00:00:00Z' } });
  const member = (c, id) => ({
    type: 'member',
    data: { user_id: id, user: { id }, cid: c.cid, created_at: '2026-01-02T00:00:01Z' },
  });
  const message = (c, id, from) => ({
    type: 'message',
    data: { id, text: `hi from ${from}`, user: { id: from }, cid: c.cid, created_at: '2026-01-03T00:00:00Z' },
  });
  await mkdir(path.join(dir, 'full', 'members'), { recursive: true });
  await writeFile(path.join(dir, 'full', 'users.ndjson'), lines([user('ann'), user('bob'), user('cy')]));
  await writeFile(
    path.join(dir, 'full', 'channels.ndjson'),
    lines([
      { type: 'channel', data: dm },
      { type: 'channel', data: team },
    ]),
  );
  // Members in their own files, after the channels, as the pull writes them; ann twice (a delta's again).
  await writeFile(
    path.join(dir, 'full', 'members', 'dm.ndjson'),
    lines([member(dm, 'ann'), member(dm, 'bob'), member(dm, 'ann')]),
  );
  await writeFile(
    path.join(dir, 'full', 'members', 'team.ndjson'),
    lines(['ann', 'bob', 'cy'].map((u) => member(team, u))),
  );
  await writeFile(
    path.join(dir, 'full', 'messages.ndjson'),
    lines([message(dm, 'm1', 'ann'), message(team, 'm2', 'cy')]),
  );
  const r = await readPlans((await plan('stream', dir)).plans);
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(r[e].problems, [], e);
  const m = byId(r.messages.sent, 'muid');
  assert.deepEqual([m.m1.receiverType, m.m1.sender, m.m1.receiver], ['user', 'ann', 'bob'], 'the pair: user-to-user');
  assert.deepEqual([m.m2.receiverType, m.m2.receiver], ['group', toVendorId('messaging:team')]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 }, 'no group for the pair');
});

test('pull stream, import, verify: every record once; a delta reads a page a channel and sends the new', async (t) => {
  const fake = await startFake(t, { world: { users: 15, channels: 6, messages: 700, seed: 5 } });
  const dir = await tempDir('cm-pull-stream-');
  const warnings = [];
  const warned = (w) => warnings.push(w.name);
  // Said on the CLI's stderr when it runs as a child, as a warning of this process when it runs in it.
  process.on('warning', warned);
  const pulled = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env });
  process.off('warning', warned);
  assert.equal(pulled.code, 0, pulled.stderr);
  assert.doesNotMatch(pulled.stderr, /MaxListenersExceededWarning/);
  assert.deepEqual(warnings, []);
  const world = await fake.describe();
  let lines = await linesIn(path.join(dir, 'out'));
  assert.equal(messagesOnce(lines).length, world.messages, 'every message of the fake, replies included');
  assert.equal(lines.filter((l) => l.type === 'user').length, world.users);
  assert.equal(lines.filter((l) => l.type === 'channel').length, world.channels.length);
  assert.equal(lines.filter((l) => l.type === 'member').length, world.members);
  assert.ok(
    lines.some((l) => l.type === 'message' && l.data.parent_id),
    'thread replies are pulled with their channel',
  );

  const box = await sandbox();
  t.after(() => box.close());
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000 });
  const first = await importFrom(dir, 'out');
  for (const [entity, c] of Object.entries(first.entities)) {
    assert.equal(c.rejected, 0, `${entity} rejected`);
    assert.equal(c.imported + c.alreadyPresent + c.skipped, c.read, `${entity}: every record accounted for`);
  }
  const direct = world.channels.filter((c) => c.kind === 'direct').length;
  assert.ok(direct > 0, 'the world has direct channels');
  assert.equal(first.entities.groups.imported, world.channels.length - direct, 'a !members- pair is no group');
  const stored = box.records();
  const dm = Object.values(stored.messages).filter((m) => m.receiverType === 'user');
  assert.ok(dm.length > 0, "the pairs' messages are user-to-user");
  const verified = await runCli(['verify', '--preset', 'stream', '--from', 'out'], { cwd: dir });
  assert.equal(verified.code, 0, `verify\n${verified.stderr}\n${verified.stdout}`);

  // Nothing new: one search page a channel, nothing written.
  const before = await fake.stats();
  const idle = await runCli(pullArgs(fake, 'out', ['--since', 'auto']), { cwd: dir, env: fake.env });
  assert.equal(idle.code, 0, idle.stderr);
  const after = await fake.stats();
  assert.equal(requestsTo(after, /^\/search$/) - requestsTo(before, /^\/search$/), world.channels.length);
  assert.equal(requestsTo(after, /\/query$|\/replies$/), requestsTo(before, /\/query$|\/replies$/), 'no history');
  assert.equal((await linesIn(path.join(dir, 'out'))).length, lines.length, 'an idle delta writes nothing');

  // Two new messages and a reply to an old thread: the next delta and import take exactly these three.
  const [general, other] = world.channels.filter((c) => c.kind === 'public' || c.kind === 'private');
  const [u1, u2, u3] = lines.filter((l) => l.type === 'user').map((l) => l.data.id);
  const oldParent = lines.find(
    (l) => l.type === 'message' && l.data.cid.endsWith(`:${general.id}`) && !l.data.parent_id,
  );
  const added = [
    await fake.post('/__fake/messages', { channelId: general.id, senderId: u1, text: 'new in general' }),
    await fake.post('/__fake/messages', { channelId: other.id, senderId: u2, text: 'new elsewhere' }),
    await fake.post('/__fake/messages', {
      channelId: general.id,
      senderId: u3,
      text: 'a late reply',
      parentId: oldParent.data.id,
    }),
  ];
  const delta = await runCli(pullArgs(fake, 'out', ['--since', 'auto']), { cwd: dir, env: fake.env });
  assert.equal(delta.code, 0, delta.stderr);
  lines = await linesIn(path.join(dir, 'out'));
  const fresh = messagesOnce(lines).filter((l) => l.run.startsWith('delta-'));
  assert.deepEqual(fresh.map((l) => l.data.id).sort(), added.map((m) => m.id).sort());
  const second = await importFrom(dir, 'out');
  assert.equal(second.entities.messages.imported, 3, JSON.stringify(second.entities.messages));
  assert.equal(second.entities.messages.rejected, 0);
  const again = await runCli(['verify', '--preset', 'stream', '--from', 'out'], { cwd: dir });
  assert.equal(again.code, 0, `verify after the delta\n${again.stderr}\n${again.stdout}`);
});

test('pull stream stopped mid-way resumes: search, queries and threads from the journal, none twice', async (t) => {
  const fake = await startFake(t, { world: { users: 12, channels: 6, messages: 2400, seed: 9 } });
  const dir = await tempDir('cm-pull-stream-resume-');
  const pull = (out) => runCli(pullArgs(fake, out, ['--source-concurrency', '1']), { cwd: dir, env: fake.env });
  const { extra } = await pullStoppedThenResumed(fake, pull);
  // Pages of lists and channel messages (a thread's replies are read again when its page was not done):
  // the refused one, and one whose answer came as the run stopped.
  const pages = extra(/^\/(users|channels|members|search)$|^\/channels\/[^/]+\/[^/]+\/query$/);
  assert.ok(pages <= 2, `${pages} pages asked again`);
  const lines = await linesIn(path.join(dir, 'out'));
  assert.equal(messagesOnce(lines).length, fake.stats().messages, 'every message once');
  for (const type of ['user', 'channel', 'member']) {
    const keys = lines.filter((l) => l.type === type).map((l) => `${l.data.cid}|${l.data.id ?? l.data.user_id}`);
    assert.equal(new Set(keys).size, keys.length, `a ${type} written twice`);
  }
});

test("pull stream through a 429 storm: Stream's rate headers are followed, nothing lost", async (t) => {
  const world = { users: 10, channels: 5, messages: 600 };
  // The fake's rate window and the pull's waits keep one virtual time: the reset it names costs nothing.
  const clock = virtualClock();
  const now = () => clock.now();
  const fake = await startFake(t, { world, faults: { spurious429: 0.3 }, retryAfterMs: 0, now });
  const dir = await tempDir('cm-pull-stream-429-');
  const r = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env, clock });
  assert.equal(r.code, 0, r.stderr);
  const stats = await fake.stats();
  assert.ok(stats.faults.spurious429 > 0, 'the storm happened');
  const [, met] = /(\d+) 429s?\)/.exec(r.stdout) ?? [];
  assert.equal(Number(met), stats.faults.spurious429, `each 429 met and tried again\n${r.stdout}`);
  const lines = await linesIn(path.join(dir, 'out'));
  assert.equal(messagesOnce(lines).length, stats.messages);
});

test('pull stream with a wrong secret: exit 1 naming the variables, secret and token written nowhere', async (t) => {
  const fake = await startFake(t, { world: { users: 5, channels: 2, messages: 40 } });
  const dir = await tempDir('cm-pull-stream-auth-');
  const secret = 'wrong-secret-8c7b6a5f4e3d2c1b0a9f';
  const env = { ...fake.env, STREAM_API_SECRET: secret };
  const r = await runCli(pullArgs(fake, 'out'), { cwd: dir, env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /STREAM_API_SECRET/);
  assert.match(r.stderr, /HTTP 401/);
  const { streamServerToken } = await import('../../dist/systems/stream/token.js');
  const token = streamServerToken(secret);
  for (const leak of [secret, token, token.split('.')[2]]) {
    assert.ok(!r.stdout.includes(leak) && !r.stderr.includes(leak), 'printed');
    for (const file of await readdir(dir, { recursive: true })) {
      const text = await readFile(path.join(dir, file), 'utf8').catch(() => '');
      assert.ok(!text.includes(leak), `${file} holds a secret`);
    }
  }
  assert.equal((await fake.stats()).unauthorized, 1, 'stopped at the first refusal');
  const missing = await runCli(pullArgs(fake, 'out'), {
    cwd: dir,
    env: { STREAM_API_KEY: 'k', STREAM_API_SECRET: '' },
  });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /STREAM_API_SECRET/);
});

test('import carries Stream attachments after their CDN links expired: fresh links asked of Stream', async (t) => {
  // The fake's links live a minute of its clock, which the test moves on past the pulled links' expiry;
  // it stands still after, so the fresh links outlive the import.
  const clock = manualClock();
  const world = { users: 6, channels: 3, messages: 400, seed: 3 };
  const fake = await startFake(t, { world, now: clock.now, linkTtlMs: 60_000 });
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const box = await sandbox();
  t.after(() => box.close());
  const dir = await tempDir('cm-pull-stream-media-');
  const pulled = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env });
  assert.equal(pulled.code, 0, pulled.stderr);
  const links = (await linesIn(path.join(dir, 'out')))
    .filter((l) => l.type === 'message')
    .flatMap((l) => l.data.attachments.map((a) => a.asset_url ?? a.image_url));
  assert.ok(links.length > 0, 'the world has attachments');
  assert.ok(
    links.every((u) => /[?&]Expires=\d+/.test(u) && /#stream-message=/.test(u)),
    links[0],
  );
  clock.advance(61_000);
  const expired = await fetch(links[0].split('#')[0]);
  assert.equal(expired.status, 403, 'the pulled link has expired');

  const media = {
    bucket: BUCKET,
    endpoint: bucket.endpoint,
    forcePathStyle: true,
    prefix: 'att/',
    publicBaseUrl: PUBLIC,
    hosts: { '127.0.0.1': {} },
    allowPrivateHosts: ['127.0.0.1'],
  };
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, checkpoint: 'state/ckpt.json', media });

  // Without the Stream credentials: not carried, the reason names them; the messages wait.
  const without = await runCli(['import', '--preset', 'stream', '--from', 'out', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(without.code, 3, without.stderr);
  assert.equal(JSON.parse(without.stdout).media.failed, links.length);
  const problems = await readNdjson(path.join(dir, 'state', 'ckpt.media-problems.ndjson'));
  assert.match(JSON.stringify(problems[0]), /STREAM_API_KEY and STREAM_API_SECRET/);

  // With them (and Stream's origin, the fake's): each file asked again of Stream and carried.
  const env = { ...AWS_ENV, ...fake.env, STREAM_BASE_URL: fake.url };
  const before = await fake.stats();
  const run = await runCli(['import', '--preset', 'stream', '--from', 'out', '--json'], { cwd: dir, env });
  assert.equal(run.code, 0, `${run.stderr}\n${run.stdout.slice(-1500)}`);
  const summary = JSON.parse(run.stdout);
  assert.equal(summary.media.failed, 0, JSON.stringify(summary.media));
  assert.equal(summary.media.uploaded + summary.media.reused, links.length);
  const after = await fake.stats();
  const refreshes = requestsTo(after, /^\/messages\/[^/]+$/) - requestsTo(before, /^\/messages\/[^/]+$/);
  assert.ok(refreshes > 0 && refreshes <= links.length, `${refreshes} messages asked again`);
  const carried = Object.values(box.records().messages).flatMap((m) => m.data.attachments ?? []);
  assert.equal(carried.length, links.length);
  assert.ok(
    carried.every((a) => a.url.startsWith(`${PUBLIC}/att/`)),
    JSON.stringify(carried[0]),
  );
  for (const text of [run.stdout, run.stderr]) assert.ok(!text.includes(fake.env.STREAM_API_SECRET));
});
