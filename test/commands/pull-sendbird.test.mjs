// `pull sendbird` against the fake of Sendbird's Platform API (in this process), then `import --preset
// sendbird` into the sandbox and `verify`. Sendbird carries the pull core's behaviours once: a delta, a 429
// storm, refused credentials (a pull killed with SIGKILL: test/process/pull.e2e.test.mjs).
// Build first: npm run build
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'sendbird', options);

/** `pull sendbird` against the fake; `--json` summary parsed when it exits 0. */
async function pull(fake, cwd, args = [], env = fake.env) {
  const run = await runCli(['pull', 'sendbird', '--out', 'pulled', '--base-url', fake.url, '--json', ...args], {
    cwd,
    env,
  });
  return { ...run, summary: run.code === 0 ? JSON.parse(run.stdout) : undefined };
}

/** Every file under `dir`, its path and text. */
async function filesUnder(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    out.push({ file, text: await readFile(file, 'utf8') });
  }
  return out;
}

/** What the pull wrote, counted across every run folder: users, channels and message ids. */
async function pulledRecords(out) {
  const records = { users: [], channels: [], members: 0, messages: [] };
  for (const { file, text } of await filesUnder(out)) {
    if (!file.endsWith('.json')) continue;
    const doc = JSON.parse(text);
    records.users.push(...(doc.active_users ?? []), ...(doc.deactivated_users ?? []));
    for (const c of [...(doc.group_channels ?? []), ...(doc.open_channels ?? [])]) {
      records.channels.push(c.channel_url);
      records.members += (c.members ?? []).length;
    }
    records.messages.push(...(doc.messages ?? []).map((m) => String(m.message_id)));
  }
  return records;
}

/** A workspace importing into `box`, unthrottled. */
async function importWorkspace(box) {
  const dir = await tempDir('cm-pull-sb-');
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 1e9, restRequestsPerMinute: 1e9 });
  return dir;
}

async function importPulled(dir, out) {
  const run = await runCli(['import', '--preset', 'sendbird', '--from', out, '--json'], { cwd: dir });
  assert.equal(run.code, 0, `import exit code\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

const messagesRequests = (stats) =>
  Object.entries(stats.byPath)
    .filter(([p]) => p.endsWith('/messages'))
    .reduce((n, [, c]) => n + c, 0);

test('pull, import, verify: every record once; a --since auto after new posts adds just those', async (t) => {
  const fake = await startFake(t, { world: { users: 40, channels: 4, messages: 1000, seed: 7 } });
  const dir = await tempDir('cm-pull-sb-');
  const first = await pull(fake, dir);
  assert.equal(first.code, 0, first.stderr);
  const out = path.join(dir, 'pulled');
  const pulled = await pulledRecords(out);
  const world = await fake.describe();
  const stats = fake.stats();
  assert.equal(pulled.messages.length, stats.messages, 'every message of the fake, in the files');
  assert.equal(new Set(pulled.messages).size, pulled.messages.length, 'no message written twice');
  assert.equal(new Set(pulled.users.map((u) => u.user_id)).size, pulled.users.length, 'no user twice');
  assert.equal(pulled.users.length, world.users, 'every user, deactivated ones too');
  assert.equal(pulled.channels.length, world.channels.length, 'every channel, group and open');

  const box = await sandbox();
  t.after(() => box.close());
  const ws = await importWorkspace(box);
  const imported = await importPulled(ws, out);
  for (const entity of ['users', 'groups', 'members', 'messages'])
    assert.equal(imported.entities[entity].rejected, 0, `${entity} rejected`);
  // A message with several files is one message per file on the service (the preset's rule).
  const stored = box.records().messages;
  assert.equal(Object.keys(stored).length, imported.entities.messages.imported);
  assert.deepEqual(
    pulled.messages.filter((id) => !stored[id]),
    [],
    'every pulled message is on the service under its message_id',
  );
  const verified = await runCli(['verify', '--preset', 'sendbird', '--from', out], { cwd: ws });
  assert.equal(verified.code, 0, `verify\n${verified.stdout}\n${verified.stderr}`);

  // New records on the source: two messages, a user, and that user joining a group channel.
  const group = world.channels.find((c) => c.kind === 'private' || (c.kind === 'public' && c !== world.channels[0]));
  const user = await fake.post('users', { name: 'Newcomer Nina' });
  await fake.post('members', { channelId: group.id, userId: user.id });
  await fake.post('messages', { channelId: group.id, senderId: user.id, text: 'hello from the delta' });
  const direct = world.channels.find((c) => c.kind === 'direct') ?? group;
  const dmMembers = /** @type {any} */ (
    await fetch(`${fake.url}/v3/group_channels/${direct.id}/members`, {
      headers: { 'Api-Token': fake.env.SENDBIRD_API_TOKEN },
    }).then((r) => r.json())
  );
  await fake.post('messages', { channelId: direct.id, senderId: dmMembers.members[0].user_id, text: 'and a DM' });
  const before = await fake.stats();
  const delta = await pull(fake, dir, ['--since', 'auto']);
  assert.equal(delta.code, 0, delta.stderr);
  assert.equal(delta.summary.kind, 'delta');
  assert.equal(delta.summary.counts.messages.imported, 2, 'the delta writes just the new messages');
  assert.equal(delta.summary.counts.members.imported, 1, "the summary counts the channel's new member");
  const after = await fake.stats();
  assert.ok(
    messagesRequests(after) - messagesRequests(before) <= world.channels.length,
    'at most one messages page a channel',
  );
  const again = await importPulled(ws, out);
  assert.equal(again.entities.messages.imported, 2, 'import sends exactly the new messages');
  assert.equal(again.entities.users.imported, 1, 'and the new user');
  assert.equal(again.entities.members.imported, 1, 'and the new member');
  for (const entity of ['users', 'groups', 'members', 'messages'])
    assert.equal(again.entities[entity].rejected, 0, `${entity} rejected after the delta`);

  // The token never leaves the environment: not in output, the journal, the run log or the files.
  const token = fake.env.SENDBIRD_API_TOKEN;
  for (const { file, text } of [...(await filesUnder(dir)), ...(await filesUnder(ws))])
    assert.ok(!text.includes(token), `the token is in ${file}`);
  assert.ok(![first, delta].some((r) => `${r.stdout}${r.stderr}`.includes(token)));
});

test('a 429 storm: the pull waits out Sendbird X-RateLimit-RetryAfter and still writes everything once', async (t) => {
  // The fault dice are seeded: the same requests meet the same 429s on every run. Each asks no wait.
  const world = { channels: 4, messages: 900, seed: 5 };
  const fake = await startFake(t, { world, faults: { spurious429: 0.25 }, retryAfterMs: 0 });
  const dir = await tempDir('cm-pull-sb-');
  const run = await pull(fake, dir, ['--source-requests-per-minute', '6000']);
  assert.equal(run.code, 0, run.stderr);
  const stats = await fake.stats();
  assert.ok(stats.faults.spurious429 > 0, 'the fake answered 429s');
  assert.equal(run.summary.rateLimited, stats.faults.spurious429, 'each 429 met, waited out and tried again');
  const pulled = await pulledRecords(path.join(dir, 'pulled'));
  assert.equal(pulled.messages.length, stats.messages);
  assert.equal(new Set(pulled.messages).size, pulled.messages.length);
});

test('a wrong token stops at once naming SENDBIRD_API_TOKEN, and is never printed or written', async (t) => {
  const fake = await startFake(t, { world: { channels: 2, messages: 50 } });
  const dir = await tempDir('cm-pull-sb-');
  const wrong = 'sb-wrong-token-5c1e0a9f77d24b3e8a61';
  const run = await pull(fake, dir, [], { ...fake.env, SENDBIRD_API_TOKEN: wrong });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /sendbird refused the credentials/);
  assert.match(run.stderr, /SENDBIRD_API_TOKEN/);
  assert.equal((await fake.stats()).requests, 1, 'no request after the refusal');
  assert.ok(!`${run.stdout}${run.stderr}`.includes(wrong), 'the token is not printed');
  for (const { file, text } of await filesUnder(dir)) assert.ok(!text.includes(wrong), `the token is in ${file}`);

  const missing = await pull(fake, dir, [], { SENDBIRD_API_TOKEN: wrong, SENDBIRD_APP_ID: '' });
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(missing.stderr, /SENDBIRD_APP_ID/);
});

test('the preset reads pull run folders in pull order: a channel pulled again keeps its first group', async (t) => {
  const out = await tempDir('cm-pull-sb-layout-');
  const write = async (rel, doc) => {
    await mkdir(path.dirname(path.join(out, rel)), { recursive: true });
    await writeFile(path.join(out, rel), JSON.stringify(doc));
  };
  const member = (id) => ({ user_id: id, nickname: id, role: '' });
  const channel = { channel_url: 'team', name: 'Team', is_public: false, created_at: 1_700_000_000 };
  const users = (ids) => ids.map((id) => ({ user_id: id, nickname: id, created_at: 1_700_000_000 }));
  await write('full-20261101T000000Z/active_users.json', { active_users: users(['ann', 'bob']) });
  await write('full-20261101T000000Z/group_channels.json', {
    group_channels: [{ ...channel, members: [member('bob'), member('ann')] }],
  });
  // The delta, renamed since and with a new member only, sorts before `full-` by name: read after it.
  await write('delta-20261102T000000Z/active_users.json', { active_users: users(['cat']) });
  await write('delta-20261102T000000Z/group_channels.json', {
    group_channels: [{ ...channel, name: 'Team (renamed)', members: [member('cat')] }],
  });
  const box = await sandbox();
  t.after(() => box.close());
  const summary = await importPulled(await importWorkspace(box), out);
  for (const entity of ['users', 'groups', 'members'])
    assert.equal(summary.entities[entity].rejected, 0, `${entity} rejected`);
  const { groups, members } = box.records();
  assert.deepEqual(Object.keys(groups), ['team']);
  assert.equal(groups.team.name, 'Team', 'the group as first pulled');
  assert.equal(groups.team.owner, 'bob', 'its owner from the full member list');
  assert.deepEqual(Object.keys(members).sort(), ['team_member_ann', 'team_member_bob', 'team_member_cat']);
});

test('a user created since the last pull is written by the next --since auto, and not by the ones after', async (t) => {
  const fake = await startFake(t, { world: { users: 5, channels: 2, messages: 20, seed: 4 } });
  const dir = await tempDir('cm-pull-sendbird-user-');
  assert.equal((await pull(fake, dir)).code, 0);
  await fake.post('/__fake/users', { id: 'newcomer', name: 'Newcomer' });
  const written = async () => {
    const run = await pull(fake, dir, ['--since', 'auto']);
    assert.equal(run.code, 0, run.stderr);
    return run.summary.counts.users.imported;
  };
  assert.equal(await written(), 1, 'the new user');
  assert.equal(await written(), 0, 'pulled before: not again');
  assert.equal(await written(), 0);
});
