// `pull discord` against the fake Discord (in this process), then `import --preset discord` and `verify`
// against the ordinary sandbox: what is Discord's own. Every message once through its snowflake paging
// and threads, a delta after its cutoff's snowflake sends exactly what is new, its 429 (a bucket and a
// JSON body) waited out, its intents, and a refused bot token named and never printed. The pull core's
// SIGKILL: test/process/pull.e2e.test.mjs.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { pullStoppedThenResumed, startFake as startSourceFake } from '../fakes/helpers.mjs';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source'>} [options] */
async function startFake(t, options = {}) {
  const fake = await startSourceFake(t, 'discord', options);
  return { ...fake, base: `${fake.url}/api/v10` };
}

const pullArgs = (fake, out, more = []) => ['pull', 'discord', '--out', out, '--base-url', fake.base, ...more];
const pull = (fake, dir, more = [], env = fake.env) => runCli(pullArgs(fake, 'out', more), { cwd: dir, env });

/** Message requests the fake answered, from its per-path counts. */
const messageRequests = (stats) =>
  Object.entries(stats.byPath ?? {})
    .filter(([p]) => /\/channels\/\d+\/messages$/.test(p))
    .reduce((n, [, c]) => n + Number(c), 0);

/** Every channel file the pulls wrote (`<out>/<run>/*.json` with a `channel`), parsed. */
async function channelFiles(out) {
  const files = [];
  for (const run of (await readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory())) {
    for (const name of await readdir(path.join(out, run.name))) {
      if (!name.endsWith('.json')) continue;
      const doc = JSON.parse(await readFile(path.join(out, run.name, name), 'utf8'));
      if (doc.channel) files.push({ run: run.name, name, doc });
    }
  }
  return files;
}

const messageIds = (files) => files.flatMap((f) => f.doc.messages.map((m) => m.id));

/** A workspace whose config points at an in-process import sandbox. */
async function importWorkspace(t) {
  const box = await sandbox();
  t.after(() => box.close());
  const dir = await tempDir('cm-pull-discord-');
  await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, restRequestsPerMinute: 100000 });
  return { box, dir };
}

const importOut = async (dir) => {
  const r = await runCli(['import', '--preset', 'discord', '--from', 'out', '--json'], { cwd: dir });
  assert.equal(r.code, 0, `import\n${r.stderr}`);
  return JSON.parse(r.stdout);
};

const SIZES = { world: { users: 8, channels: 6, messages: 900 } };

test('pull, import, verify: every message of the fake once, members as users', async (t) => {
  const fake = await startFake(t, SIZES);
  const { box, dir } = await importWorkspace(t);
  const r = await pull(fake, dir);
  assert.equal(r.code, 0, r.stderr);
  const total = (await fake.stats()).messages;
  const files = await channelFiles(path.join(dir, 'out'));
  const ids = messageIds(files);
  assert.equal(ids.length, total, 'every message written');
  assert.equal(new Set(ids).size, ids.length, 'none twice');
  // Threads are files of their own, as DiscordChatExporter writes them.
  const kinds = new Set(files.map((f) => f.doc.channel.type));
  assert.ok(kinds.has('GuildTextChat') && kinds.has('GuildPublicThread'), [...kinds].join());

  const summary = await importOut(dir);
  const m = summary.entities.messages;
  assert.equal(m.rejected, 0);
  // The preset makes one message per attachment (the text on the first).
  const records = files.flatMap((f) => f.doc.messages).reduce((n, x) => n + Math.max(1, x.attachments.length), 0);
  assert.equal(m.read, records);
  assert.equal(m.imported + m.skipped, records, 'every record stored or skipped with a reason');
  assert.equal(Object.keys(box.records().messages).length, m.imported);
  // The member list makes users of everyone, also those who never wrote.
  assert.equal(summary.entities.users.read, (await fake.describe()).users);
  const v = await runCli(['verify', '--preset', 'discord', '--from', 'out'], { cwd: dir });
  assert.equal(v.code, 0, `verify\n${v.stdout}\n${v.stderr}`);
});

test('pull discord stopped mid-way resumes: its snowflake pages from the journal, none asked twice', async (t) => {
  const fake = await startFake(t, { world: { users: 8, channels: 6, messages: 3000 } });
  const dir = await tempDir('cm-pull-discord-');
  const pull = (out) => runCli(pullArgs(fake, out, ['--source-concurrency', '1']), { cwd: dir, env: fake.env });
  const { extra } = await pullStoppedThenResumed(fake, pull);
  // The refused page, and one whose answer came as the run stopped. (Each run asks who it is and which
  // server first: three requests that are no pages.)
  assert.ok(extra(/\/channels\/\d+\/messages$|\/threads\/|\/members$/) <= 2, 'pages asked again');
  const ids = messageIds(await channelFiles(path.join(dir, 'out')));
  assert.equal(ids.length, fake.stats().messages, 'every message once');
  assert.equal(new Set(ids).size, ids.length, 'none written twice');
});

test('posted messages, then pull --since auto and import: exactly the new ones, one page a channel', async (t) => {
  const fake = await startFake(t, SIZES);
  const { box, dir } = await importWorkspace(t);
  assert.equal((await pull(fake, dir)).code, 0);
  const first = await importOut(dir);
  // The control routes take the world's ids: a newcomer joins two channels and writes in them.
  const world = await fake.describe();
  const channels = world.channels.map((c) => c.id);
  const newcomer = await fake.post('users', { name: 'Newcomer' });
  // One who joins and never writes: a user only through the member list.
  await fake.post('users', { name: 'Lurker' });
  const posted = [];
  for (const [i, channelId] of [channels[0], channels[1], channels[0]].entries()) {
    await fake.post('members', { channelId, userId: newcomer.id });
    posted.push(await fake.post('messages', { channelId, senderId: newcomer.id, text: `new ${i}` }));
  }

  const asked = messageRequests(await fake.stats());
  const r = await pull(fake, dir, ['--since', 'auto']);
  assert.equal(r.code, 0, r.stderr);
  const delta = messageRequests(await fake.stats()) - asked;
  // The world's channels and the fake's own announcement channel (no messages).
  assert.equal(delta, channels.length + 1, 'one messages page per channel');
  const second = await importOut(dir);
  assert.equal(second.entities.messages.imported, posted.length, 'exactly the new messages');
  assert.equal(second.entities.users.imported, 2, "the newcomer and the lurker, from the delta's member list");
  assert.equal(second.entities.messages.rejected, 0);
  assert.equal(second.entities.users.rejected + second.entities.groups.rejected + second.entities.members.rejected, 0);
  assert.equal(Object.keys(box.records().messages).length, first.entities.messages.imported + posted.length);

  // Nothing new: still one page a channel, no message written, nothing for the import to send.
  const again = messageRequests(await fake.stats());
  const quiet = await pull(fake, dir, ['--since', 'auto', '--json']);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(messageRequests(await fake.stats()) - again, channels.length + 1);
  assert.equal(JSON.parse(quiet.stdout).counts.messages.imported, 0);
  const third = await importOut(dir);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.equal(third.entities[e].imported, 0, `${e}: nothing new`);
    assert.equal(third.entities[e].rejected, 0, `${e}: nothing refused`);
  }
});

test('a 429 storm is waited out: every message once', async (t) => {
  // The fake's buckets and the pull's waits keep one virtual time: a bucket's reset costs nothing.
  const clock = virtualClock();
  const fake = await startFake(t, { ...SIZES, faults: { spurious429: 0.3 }, retryAfterMs: 0, now: () => clock.now() });
  const dir = await tempDir('cm-pull-discord-');
  const r = await runCli(pullArgs(fake, 'out'), { cwd: dir, env: fake.env, clock });
  assert.equal(r.code, 0, r.stderr);
  const stats = await fake.stats();
  const answered429 = stats.byStatus['429'] ?? 0;
  assert.ok(answered429 > 5, `${answered429} 429s`);
  const ids = messageIds(await channelFiles(path.join(dir, 'out')));
  assert.equal(ids.length, stats.messages);
  assert.equal(new Set(ids).size, ids.length);
});

test('without the Server Members intent: said once, and users come from the message authors', async (t) => {
  const fake = await startFake(t, SIZES);
  const { dir } = await importWorkspace(t);
  await fake.post('users', { name: 'Lurker' });
  const r = await pull(fake, dir, [], { DISCORD_BOT_TOKEN: `${fake.env.DISCORD_BOT_TOKEN}-no-members` });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.match(/Server Members intent is off/g)?.length, 1, r.stderr);
  const files = await channelFiles(path.join(dir, 'out'));
  const authors = new Set(files.flatMap((f) => f.doc.messages.map((m) => m.author.id)));
  const summary = await importOut(dir);
  assert.equal(summary.entities.users.read, authors.size);
  assert.ok(authors.size < (await fake.describe()).users, 'the lurker is not among them');
});

/** Every file under a folder, as text. */
async function allText(dir) {
  let text = '';
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) text += await readFile(path.join(e.parentPath ?? e.path, e.name), 'utf8');
  return text;
}

test('a wrong token stops at once naming DISCORD_BOT_TOKEN, and is never printed or written', async (t) => {
  const fake = await startFake(t);
  const dir = await tempDir('cm-pull-discord-');
  const token = 'wrong-9f8e7d6c5b4a3928.discord-token';
  const r = await pull(fake, dir, [], { DISCORD_BOT_TOKEN: token });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /DISCORD_BOT_TOKEN/);
  assert.ok(!`${r.stdout}${r.stderr}`.includes(token), 'not in the output');
  assert.ok(!(await allText(dir)).includes(token), 'not in any file (journal, run log)');
  assert.ok((await fake.stats()).requests <= 1, 'no request after the refusal');
});

test('a bot without the Message Content intent stops before any page, saying how to turn it on', async (t) => {
  const fake = await startFake(t);
  const dir = await tempDir('cm-pull-discord-');
  const r = await pull(fake, dir, [], { DISCORD_BOT_TOKEN: `${fake.env.DISCORD_BOT_TOKEN}-no-content` });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Message Content Intent/);
  assert.match(r.stderr, /Developer Portal/);
  assert.equal(messageRequests(await fake.stats()), 0);
});

test('route buckets: a spent bucket holds its own channel until it refills, a global 429 holds all', async () => {
  const { BucketGate } = await import('../../dist/systems/discord/buckets.js');
  let now = 1_000_000;
  const gate = new BucketGate(() => now);
  const route = 'GET /channels/:id/messages';
  assert.equal(gate.waitMs(route, 'c1'), 0, 'unknown bucket: no wait');
  const seen = gate.observe(route, 'c1', {
    'x-ratelimit-bucket': 'abc',
    'x-ratelimit-limit': '5',
    'x-ratelimit-remaining': '1',
    'x-ratelimit-reset-after': '2.5',
    'retry-after': '3',
  });
  // The run's per-minute limiter must not read a 5-request window as 5 a minute.
  assert.deepEqual(Object.keys(seen), ['x-ratelimit-bucket', 'x-ratelimit-reset-after', 'retry-after']);
  assert.equal(gate.waitMs(route, 'c1'), 0, 'one left');
  gate.take(route, 'c1');
  assert.equal(gate.waitMs(route, 'c1'), 2500, 'spent: until the reset');
  assert.equal(gate.waitMs(route, 'c2'), 0, 'another channel has its own bucket');
  now += 2500;
  assert.equal(gate.waitMs(route, 'c1'), 0, 'refilled');
  gate.limited({ retry_after: 1.5, global: true });
  assert.equal(gate.waitMs('GET /guilds/:id/members', 'g'), 1500, 'global: every route');
});

test('a delta asks after the snowflake of its cutoff', async () => {
  const { snowflakeAt, snowflakeMs } = await import('../../dist/systems/discord/snowflake.js');
  // Discord's documented example: 175928847299117063 was made at 2016-04-30T11:18:25.796Z.
  assert.equal(snowflakeMs('175928847299117063'), Date.parse('2016-04-30T11:18:25.796Z'));
  const at = Date.parse('2016-04-30T11:18:25.796Z');
  assert.ok(BigInt(snowflakeAt(at)) < 175928847299117063n, 'a message of that ms is after it');
  assert.ok(BigInt(snowflakeAt(at + 1)) > 175928847299117063n, 'one of the ms before is not');
  assert.equal(snowflakeAt(0), '0');
});

test('a request without a DiscordBot User-Agent is blocked, as Discord may; the pull never is', async (t) => {
  const fake = await startFake(t, SIZES);
  const auth = { authorization: `Bot ${fake.env.DISCORD_BOT_TOKEN}` };
  const bare = await fetch(`${fake.base}/applications/@me`, { headers: { ...auth, 'user-agent': 'node' } });
  assert.equal(bare.status, 403);
  assert.equal(
    /** @type {{ code?: number }} */ (await bare.json()).code,
    40333,
    "Discord's code for a request Cloudflare blocks",
  );
  const dir = await tempDir('cm-pull-discord-');
  const r = await pull(fake, dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fake.stats().byStatus['403'] ?? 0, 1, 'only the bare request above was blocked');
});

test('without Read Message History a channel answers 200 [] and the pull names it; others are whole', async (t) => {
  const fake = await startFake(t, SIZES);
  const dir = await tempDir('cm-pull-discord-');
  const r = await pull(fake, dir, [], { DISCORD_BOT_TOKEN: `${fake.env.DISCORD_BOT_TOKEN}-no-history` });
  assert.equal(r.code, 0, r.stderr);
  const world = await fake.describe();
  const first = world.channels.find((c) => c.kind === 'public');
  assert.ok(first.messages > 0, 'the channel has messages the bot cannot read');
  const warning = r.stderr.split('\n').find((l) => /answered no messages at all/.test(l)) ?? '';
  assert.match(warning, new RegExp(`\\b${first.name}\\b`), r.stderr);
  assert.match(warning, /Read Message History/);
  for (const c of world.channels.filter((x) => x.messages > 0 && x.id !== first.id))
    assert.doesNotMatch(warning, new RegExp(`\\b${c.name}\\b`), `${c.name} has messages and gave them`);
  const ids = messageIds(await channelFiles(path.join(dir, 'out')));
  assert.equal(ids.length, world.messages - first.messages, 'every other message');
  // Its archived-thread lists need Read Message History too: the public one is refused and named, and
  // the private one, which would be refused as well, is not asked (a 403 is an invalid request to Discord).
  assert.match(r.stderr, new RegExp(`archived threads of .*\\b${first.name} \\(public archived threads: HTTP 403`));
  const asked = (re) => Object.keys(fake.stats().byPath).filter((p) => re.test(p)).length;
  assert.equal(asked(/\d\/threads\/archived\/private$/), asked(/\/threads\/archived\/public$/) - 1);
});

test('without Manage Threads: the archived private threads the bot joined, from their own route', async (t) => {
  const fake = await startFake(t, { world: { users: 8, channels: 16, messages: 900 } });
  const dir = await tempDir('cm-pull-discord-');
  const token = `${fake.env.DISCORD_BOT_TOKEN}-no-manage-threads`;
  const r = await pull(fake, dir, [], { DISCORD_BOT_TOKEN: token });
  assert.equal(r.code, 0, r.stderr);
  // Every thread parent refuses the private list (Missing Permissions): the forum holds the fake's threads.
  assert.match(
    r.stderr,
    /lacks Manage Threads in \d+ channels \(threads, .*\): only the archived private threads it joined/,
  );
  const paths = Object.keys(fake.stats().byPath);
  assert.ok(
    paths.some((p) => /\/channels\/\d+\/users\/@me\/threads\/archived\/private$/.test(p)),
    paths.join(),
  );
  // The fake's bot joined every other private thread: those are pulled, the others cannot be seen.
  const world = await fake.describe();
  const privates = world.channels.filter((c) => c.kind === 'private');
  const unseen = privates.filter((_, i) => i % 2 === 1).reduce((n, c) => n + c.messages, 0);
  assert.ok(privates.length >= 2 && unseen > 0, `${privates.length} private threads`);
  const files = await channelFiles(path.join(dir, 'out'));
  assert.equal(messageIds(files).length, world.messages - unseen);
  const joined = privates.filter((c, i) => i % 2 === 0 && c.messages > 0).length;
  assert.equal(files.filter((f) => f.doc.channel.type === 'GuildPrivateThread').length, joined);
});

test('a thread list Discord does not document for a channel (private, announcement) is named, not fatal', async (t) => {
  const fake = await startFake(t, SIZES);
  const dir = await tempDir('cm-pull-discord-');
  const r = await pull(fake, dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /could not list the archived threads of 1 channel \(announcements \(private archived/);
  const ids = messageIds(await channelFiles(path.join(dir, 'out')));
  assert.equal(ids.length, fake.stats().messages, 'every message of the rest');
});
