// `pull slack` against the Slack fake (in this process), then `import --preset slack` into the import
// sandbox and `verify`: what is Slack's own. Every record once through its cursors, newest-first history
// and threads; new messages taken by `--since auto` (`oldest`) and sent by the next import; its refusal
// (HTTP 200, `ok: false`) naming SLACK_TOKEN; files behind the sign-in page never stored as the file.
// The pull core's SIGKILL and 429 storm: test/process/pull.e2e.test.mjs and test/commands/pull-sendbird.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pullStoppedThenResumed, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { AWS_ENV, BUCKET, PUBLIC, startBucket } from '../media-servers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

const FAST = ['--source-requests-per-minute', '60000'];

/** @param {import('../fakes/dist/index.js').FakeWorldOptions} world */
const startFake = (t, world) => startSourceFake(t, 'slack', { world });

/** `pull slack` into `out` (relative to `cwd`), against the fake. */
function pullArgs(fake, out, extra = []) {
  return ['pull', 'slack', '--out', out, '--base-url', fake.url, ...FAST, ...extra];
}

/** Every day file's messages of a pull's output, by run folder and file. */
async function messagesIn(out) {
  const files = [];
  for (const run of (await readdir(out)).filter((n) => /^(full|delta)-/.test(n))) {
    for (const entry of await readdir(path.join(out, run), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      for (const day of await readdir(path.join(out, run, entry.name))) {
        const rel = `${run}/${entry.name}/${day}`;
        files.push({ rel, messages: JSON.parse(await readFile(path.join(out, rel), 'utf8')) });
      }
    }
  }
  return files;
}

const total = (files) => files.reduce((n, f) => n + f.messages.length, 0);

/** Each ts once in a conversation's files: nothing written twice. */
function assertNothingTwice(files) {
  const seen = new Set();
  for (const { rel, messages } of files) {
    const folder = rel.split('/')[1];
    for (const m of messages) {
      const key = `${folder}:${m.ts}`;
      assert.ok(!seen.has(key), `${key} written twice (${rel})`);
      seen.add(key);
    }
  }
}

/** The fake's message total: what "every record once" means. */
async function worldMessages(fake) {
  return (await fake.stats()).messages;
}

async function importInto(dir, from, extra = []) {
  const r = await runCli(['import', '--preset', 'slack', '--from', from, '--json', ...extra], { cwd: dir });
  assert.equal(r.code, 0, `import exit code\n${r.stderr}\n${r.stdout}`);
  return JSON.parse(r.stdout);
}

const byPath = (stats, method) => stats.byPath?.[`/${method}`] ?? 0;

test('pull slack, import, verify: every record once; a delta brings exactly the new messages', async (t) => {
  const fake = await startFake(t, { users: 12, channels: 6, messages: 900, seed: 7 });
  const dir = await tempDir('cm-pull-slack-');
  const env = fake.env;
  const pulled = await runCli(pullArgs(fake, 'out'), { cwd: dir, env });
  assert.equal(pulled.code, 0, pulled.stderr);
  const out = path.join(dir, 'out');
  const files = await messagesIn(out);
  assertNothingTwice(files);
  assert.equal(total(files), await worldMessages(fake), 'every message of the fake, replies included');
  const [full] = (await readdir(out)).filter((n) => n.startsWith('full-'));
  for (const index of ['users.json', 'channels.json', 'groups.json', 'mpims.json', 'dms.json'])
    assert.ok(Array.isArray(JSON.parse(await readFile(path.join(out, full, index), 'utf8'))), index);

  const box = await sandbox();
  t.after(() => box.close());
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000 });
  const first = await importInto(dir, 'out');
  for (const [entity, c] of Object.entries(first.entities)) {
    assert.equal(c.rejected, 0, `${entity} rejected`);
    assert.equal(c.imported + c.alreadyPresent + c.skipped, c.read, `${entity}: every record accounted for`);
  }
  // The preset sends a message with several files as a record per file.
  const records = files.flatMap((f) => f.messages).reduce((n, m) => n + Math.max(1, m.files?.length ?? 0), 0);
  assert.equal(first.entities.messages.read, records);
  const verified = await runCli(['verify', '--preset', 'slack', '--from', 'out'], { cwd: dir });
  assert.equal(verified.code, 0, `verify\n${verified.stderr}\n${verified.stdout}`);

  // A newcomer joins two channels and writes three messages there, one a reply in a new thread: the
  // next delta and import take exactly these, and the channels listed again are no duplicates.
  const world = await fake.describe();
  const [a, b] = world.channels.filter((c) => c.kind === 'public' || c.kind === 'private');
  const newcomer = await fake.post('/__fake/users', { name: 'nora.newcomer' });
  for (const c of [a, b]) await fake.post('/__fake/members', { channelId: c.id, userId: newcomer.id });
  const said = (c, text, parentId) =>
    fake.post('/__fake/messages', { channelId: c.id, senderId: newcomer.id, text, ...(parentId ? { parentId } : {}) });
  const parent = await said(a, 'new in a');
  await said(a, 'reply', parent.id);
  await said(b, 'new in b');
  const delta = await runCli(pullArgs(fake, 'out', ['--since', 'auto']), { cwd: dir, env });
  assert.equal(delta.code, 0, delta.stderr);
  const deltaFiles = (await messagesIn(out)).filter((f) => f.rel.startsWith('delta-'));
  assert.deepEqual(deltaFiles.flatMap((f) => f.messages.map((m) => m.text)).sort(), ['new in a', 'new in b', 'reply']);
  const second = await importInto(dir, 'out');
  for (const [entity, c] of Object.entries(second.entities)) assert.equal(c.rejected, 0, `${entity} rejected`);
  assert.equal(second.entities.messages.imported, 3, JSON.stringify(second.entities.messages));
  assert.equal(second.entities.users.imported, 1, JSON.stringify(second.entities.users));
  assert.equal(second.entities.members.imported, 2, JSON.stringify(second.entities.members));
  assert.equal(second.entities.groups.imported, 0, JSON.stringify(second.entities.groups));
  const texts = Object.values(box.records().messages).map((m) => m.data?.text);
  for (const text of ['new in a', 'new in b', 'reply']) assert.equal(texts.filter((x) => x === text).length, 1, text);
  // Nothing new since: one history page per conversation at most, and the new thread (in the lookback
  // window) is not read again.
  const before = await fake.stats();
  const idle = await runCli(pullArgs(fake, 'out', ['--since', 'auto']), { cwd: dir, env });
  assert.equal(idle.code, 0, idle.stderr);
  const after = await fake.stats();
  const conversations = (await fake.describe()).channels.length;
  const history = byPath(after, 'conversations.history') - byPath(before, 'conversations.history');
  assert.ok(history <= conversations, `${history} history pages for ${conversations} conversations`);
  assert.equal(byPath(after, 'conversations.replies'), byPath(before, 'conversations.replies'), 'no thread re-read');
});

test('pull slack stopped mid-way resumes: its lists and threads from the journal, no page asked twice', async (t) => {
  const fake = await startFake(t, { users: 8, channels: 4, messages: 2400, seed: 3 });
  const dir = await tempDir('cm-pull-slack-resume-');
  const pull = (out) => runCli(pullArgs(fake, out, ['--source-concurrency', '1']), { cwd: dir, env: fake.env });
  const { extra } = await pullStoppedThenResumed(fake, pull);
  const lists = extra(/^\/(users\.list|conversations\.list|conversations\.members)$/);
  assert.equal(lists, 0, 'lists done before the stop are not read again');
  // The refused page, and one whose answer came as the run stopped. (A thread's replies are read again
  // when its history page was not done.)
  assert.ok(extra(/^\/conversations\.history$/) <= 2, 'history pages asked again');
  const files = await messagesIn(path.join(dir, 'out'));
  assertNothingTwice(files);
  assert.equal(total(files), await worldMessages(fake));
});

test('pull slack with a wrong token stops at once, names SLACK_TOKEN and never prints the token', async (t) => {
  const fake = await startFake(t, { users: 3, channels: 2, messages: 20 });
  const dir = await tempDir('cm-pull-slack-auth-');
  const wrong = 'xoxb-0000wrong-token-5d1e9c8b7a6f4e3d';
  const r = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: { SLACK_TOKEN: wrong } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /slack refused the credentials \(users\.list: invalid_auth\)/);
  assert.match(r.stderr, /SLACK_TOKEN/);
  const written = await everyFileText(dir);
  for (const text of [r.stdout, r.stderr, written])
    assert.ok(!text.includes(wrong), 'the token was printed or written');
  assert.equal((await fake.stats()).requests, 1, 'stopped at the first refusal');

  const missing = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: { SLACK_TOKEN: '' } });
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /SLACK_TOKEN/);
});

/** Every file under `dir` as one text (the journal, the run log, the checkpoint, what was pulled). */
async function everyFileText(dir) {
  let text = '';
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8');
  }
  return text;
}

test('slack files: without the token the sign-in page is not stored; with it the files are carried', async (t) => {
  const fake = await startFake(t, { users: 4, channels: 2, messages: 120, seed: 5 });
  const dir = await tempDir('cm-pull-slack-media-');
  assert.equal((await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env })).code, 0);
  const files = (await messagesIn(path.join(dir, 'out'))).flatMap((f) => f.messages.flatMap((m) => m.files ?? []));
  assert.ok(files.length > 0, 'the fake world has files');
  const box = await sandbox();
  t.after(() => box.close());
  const bucket = await startBucket();
  t.after(() => bucket.close());
  const host = new URL(fake.url).hostname;
  const media = (hosts) => ({
    bucket: BUCKET,
    endpoint: bucket.endpoint,
    forcePathStyle: true,
    publicBaseUrl: PUBLIC,
    allowPrivateHosts: [host],
    hosts,
  });
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, media: media({ [host]: {} }) });
  const env = { ...AWS_ENV, SLACK_TOKEN: fake.env.SLACK_TOKEN };
  const without = await runCli(['import', '--preset', 'slack', '--from', 'out', '--json'], { cwd: dir, env });
  const first = JSON.parse(without.stdout);
  assert.equal(first.media.failed, new Set(files.map((f) => f.url_private)).size, JSON.stringify(first.media));
  assert.equal(bucket.uploads(), 0, 'no sign-in page stored');
  const problems = await readFile(path.join(dir, '.migrate-checkpoint.media-problems.ndjson'), 'utf8');
  assert.match(problems, /Slack answered with its sign-in page/);
  assert.match(problems, /files:read/);

  const auth = { header: 'Authorization', prefix: 'Bearer ', valueEnv: 'SLACK_TOKEN' };
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, media: media({ [host]: auth }) });
  const withToken = await runCli(['import', '--preset', 'slack', '--from', 'out', '--json'], { cwd: dir, env });
  assert.equal(withToken.code, 0, withToken.stderr);
  const second = JSON.parse(withToken.stdout);
  assert.equal(second.media.failed, 0, JSON.stringify(second.media));
  for (const [key, bytes] of await bucket.objects()) assert.ok(!/<html/i.test(bytes.toString('latin1')), key);
  const text = `${without.stdout}${without.stderr}${withToken.stdout}${withToken.stderr}${await everyFileText(dir)}`;
  assert.ok(!text.includes(fake.env.SLACK_TOKEN), 'the token was printed or written');
});

test('slack preset: run folders read as one export, the newest copy of a user or channel wins', async (t) => {
  const dir = await tempDir('cm-pull-slack-roots-');
  const write = async (rel, value) => {
    await mkdir(path.dirname(path.join(dir, 'out', rel)), { recursive: true });
    await writeFile(path.join(dir, 'out', rel), JSON.stringify(value));
  };
  const user = (name) => ({ id: 'U00000001', name: 'ann', real_name: name, profile: { real_name: name } });
  const channel = (topic, members) => ({
    id: 'C00000001',
    name: 'general',
    created: 1_790_000_000,
    creator: 'U00000001',
    topic: { value: topic },
    members,
  });
  await write('full-20261101T000000Z/users.json', [user('Ann Old')]);
  await write('full-20261101T000000Z/channels.json', [channel('old topic', ['U00000001'])]);
  await write('full-20261101T000000Z/general/2026-09-21.json', [
    { type: 'message', user: 'U00000001', text: 'one', ts: '1790000100.000100' },
  ]);
  // The delta lists both again (changed), has a newcomer, and a message in a folder only the full run lists.
  await write('delta-20261102T000000Z/users.json', [user('Ann New'), { id: 'U00000002', name: 'bo', real_name: 'Bo' }]);
  await write('delta-20261102T000000Z/channels.json', [channel('new topic', ['U00000002'])]);
  await write('delta-20261102T000000Z/general/2026-11-01.json', [
    { type: 'message', user: 'U00000002', text: 'two', ts: '1793500000.000100', pinned_to: ['C00000001'] },
  ]);
  const box = await sandbox();
  t.after(() => box.close());
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000 });
  const { entities } = await importInto(dir, 'out');
  for (const [entity, c] of Object.entries(entities)) assert.equal(c.rejected, 0, `${entity} rejected`);
  assert.equal(entities.users.imported, 2);
  assert.equal(entities.users.skipped, 1, 'the older copy of ann is superseded');
  assert.equal(entities.groups.imported, 1);
  assert.equal(entities.members.imported, 2);
  assert.equal(entities.messages.imported, 2);
  const records = box.records();
  assert.deepEqual(
    Object.values(records.users)
      .map((u) => u.name)
      .sort(),
    ['Ann New', 'Bo'],
  );
  assert.equal(Object.values(records.groups)[0].metadata.topic, 'new topic');
  const two = Object.values(records.messages).find((m) => m.data.text === 'two');
  assert.equal(two.data.metadata.pinned, true);
});

test('conversations.members is asked 999 at most a page: a channel of 1,000 members is read whole', async (t) => {
  // The fake refuses a limit of 1,000 or more with invalid_limit, as Slack's SDK types say it may.
  const fake = await startFake(t, { users: 1000, channels: 2, messages: 30, seed: 4 });
  const dir = await tempDir('cm-pull-slack-members-');
  const r = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env });
  assert.equal(r.code, 0, r.stderr);
  const [full] = (await readdir(path.join(dir, 'out'))).filter((n) => n.startsWith('full-'));
  const channels = JSON.parse(await readFile(path.join(dir, 'out', full, 'channels.json'), 'utf8'));
  const everyone = (await fake.describe()).channels[0];
  assert.equal(everyone.members, 1000, 'the first channel holds everyone');
  assert.equal(Math.max(...channels.map((c) => c.members.length)), 1000, 'every member of it pulled');
  assert.ok(byPath(fake.stats(), 'conversations.members') >= 3, 'its members took two pages');
});

test("slack's transient errors (ok: false) are tried again, and a lasting one stops after the retries", async (t) => {
  // internal_error, fatal_error, request_timeout, fetch_members_failed: HTTP 200 with ok: false.
  const clock = virtualClock();
  const world = { users: 8, channels: 4, messages: 300, seed: 9 };
  const flaky = await startSourceFake(t, 'slack', { world, faults: { sourceError: 0.25 } });
  const dir = await tempDir('cm-pull-slack-transient-');
  const r = await runCli(pullArgs(flaky, 'out'), { cwd: dir, env: flaky.env, clock });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(flaky.stats().faults.sourceError > 3, `${flaky.stats().faults.sourceError} transient errors met`);
  const files = await messagesIn(path.join(dir, 'out'));
  assertNothingTwice(files);
  assert.equal(total(files), await worldMessages(flaky), 'every message once');

  const broken = await startSourceFake(t, 'slack', { world, faults: { sourceError: 1 } });
  const stopped = await runCli(pullArgs(broken, 'out', ['--retries', '2']), { cwd: dir, env: broken.env, clock });
  assert.equal(stopped.code, 1, stopped.stderr);
  const transient = /slack: users\.list: (internal_error|fatal_error|request_timeout) \(a transient error on Slack/;
  assert.match(stopped.stderr, transient);
  assert.match(stopped.stderr, /gave up after 2 retries/);
  assert.equal(broken.stats().requests, 3, 'the first try and two retries, then a clear stop');
});
