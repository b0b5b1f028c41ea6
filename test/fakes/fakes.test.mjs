// The fakes of the live sources: the generated world (deterministic, lazy, searchable), the fake server
// (credentials, budget, faults, control routes) with a trivial source, and fakes in one process that
// share nothing, whose waits and link lifetimes the test sets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { streamServerToken } from '../../dist/systems/stream/token.js';
import { GeneratedWorld, startFake } from './dist/index.js';
import { ECHO_TOKEN, echoSource } from './echo-source.mjs';
import { manualClock } from './helpers.mjs';

const AUTH = { authorization: `Bearer ${ECHO_TOKEN}` };

/** @returns {Promise<any>} */
async function getJson(url, init = undefined) {
  return (await fetch(url, init)).json();
}

/** Every message of a channel, in order. */
function messagesOf(world, channelId) {
  return Array.from({ length: world.messageCount(channelId) }, (_, i) => world.messageAt(channelId, i));
}

async function fake(t, options = {}) {
  const server = await startFake(echoSource, { port: 0, ...options });
  t.after(() => server.close());
  return server;
}

test('the same seed makes the same world; another seed another', () => {
  const a = new GeneratedWorld({ seed: 7 });
  const b = new GeneratedWorld({ seed: 7 });
  const c = new GeneratedWorld({ seed: 8 });
  assert.deepEqual(a.users, b.users);
  assert.deepEqual(a.channels, b.channels);
  for (const channel of a.channels) assert.deepEqual(messagesOf(a, channel.id), messagesOf(b, channel.id));
  assert.notDeepEqual(
    a.channels.map((ch) => ch.members),
    c.channels.map((ch) => ch.members),
  );
  assert.notDeepEqual(messagesOf(a, a.channels[0].id).slice(0, 20), messagesOf(c, c.channels[0].id).slice(0, 20));
});

test('the default world: sizes, every kind of channel, threads, mentions, attachments, edits', () => {
  const world = new GeneratedWorld();
  assert.equal(world.users.length, 50);
  assert.equal(world.channels.length, 20);
  assert.equal(world.totalMessages(), 3000);
  assert.deepEqual(
    new Set(world.channels.map((c) => c.kind)),
    new Set(['public', 'private', 'direct', 'group-direct']),
  );
  assert.equal(new Set(world.users.map((u) => u.id)).size, 50);
  assert.equal(new Set(world.users.map((u) => u.name)).size, 50, 'names are unique: @<name> names one user');
  const all = world.channels.flatMap((c) => messagesOf(world, c.id));
  assert.equal(new Set(all.map((m) => m.id)).size, 3000, 'message ids are unique across the world');
  for (const channel of world.channels) {
    if (channel.kind === 'direct') assert.equal(channel.members.length, 2);
    const memberIds = new Set(channel.members.map((m) => m.userId));
    const messages = messagesOf(world, channel.id);
    for (const [i, m] of messages.entries()) {
      assert.ok(memberIds.has(m.senderId), `${m.id}: its sender is a member`);
      if (i > 0) {
        assert.ok(m.sentAtMs > messages[i - 1].sentAtMs, 'times strictly increase in a channel');
        assert.ok(m.id > messages[i - 1].id && m.seq > messages[i - 1].seq, 'ids sort in send order');
      }
      if (m.parentId !== undefined) {
        const parent = world.indexOfId(channel.id, m.parentId);
        assert.ok(parent >= 0 && parent < i, `${m.id}: the parent is earlier in the same channel`);
        assert.equal(world.messageAt(channel.id, parent).parentId, undefined, 'threads are one level deep');
      }
      for (const id of m.mentions) assert.ok(m.text.includes(`@${world.user(id).name}`), `${m.id} names ${id}`);
      assert.ok(m.sentAtMs < world.nowMs && m.sentAtMs > world.nowMs - 40 * 86_400_000);
    }
  }
  const share = (pick) => all.filter(pick).length / all.length;
  assert.ok(share((m) => m.parentId) > 0.05, 'thread replies');
  assert.ok(share((m) => m.mentions.length > 0) > 0.05, 'mentions');
  assert.ok(share((m) => m.attachments.length > 0) > 0.02, 'attachments');
  assert.ok(share((m) => m.editedAtMs !== undefined) > 0.01, 'edited messages');
  assert.ok(
    all.every((m) => m.editedAtMs === undefined || m.editedAtMs > m.sentAtMs),
    'an edit comes after its message',
  );
});

test('a million messages are made on demand: the last one, and its id and time found again', () => {
  const world = new GeneratedWorld({ messages: 1_000_000 });
  assert.equal(world.totalMessages(), 1_000_000);
  for (const channel of world.channels) {
    const count = world.messageCount(channel.id);
    if (count === 0) continue;
    const last = world.messageAt(channel.id, count - 1);
    assert.equal(last.channelId, channel.id);
    assert.equal(world.indexOfId(channel.id, last.id), count - 1);
    assert.equal(world.indexAtOrAfter(channel.id, last.sentAtMs), count - 1);
    assert.equal(world.indexAtOrAfter(channel.id, last.sentAtMs + 1), count);
    assert.ok(world.messageAt(channel.id, count - 2).seq < last.seq);
  }
  assert.throws(() => world.messageAt(world.channels[0].id, world.messageCount(world.channels[0].id)), RangeError);
});

test("indexAtOrAfter agrees with a scan; indexOfId knows only the channel's own ids", () => {
  const world = new GeneratedWorld({ messages: 2000, seed: 3 });
  const channel = world.channels[0].id;
  const messages = messagesOf(world, channel);
  const scan = (ms) => {
    const i = messages.findIndex((m) => m.sentAtMs >= ms);
    return i < 0 ? messages.length : i;
  };
  const first = messages[0].sentAtMs;
  const last = messages.at(-1).sentAtMs;
  for (const ms of [0, first - 1, first, first + 1, last - 1, last, last + 1, Number.MAX_SAFE_INTEGER]) {
    assert.equal(world.indexAtOrAfter(channel, ms), scan(ms), `at ${ms}`);
  }
  for (let k = 0; k < 200; k++) {
    const ms = first + Math.floor(((last - first) * k) / 199);
    assert.equal(world.indexAtOrAfter(channel, ms), scan(ms), `at ${ms}`);
  }
  for (const i of [0, 1, messages.length >> 1, messages.length - 1])
    assert.equal(world.indexOfId(channel, messages[i].id), i);
  const other = world.channels[1].id;
  assert.equal(world.indexOfId(other, messages[5].id), -1);
  assert.equal(world.indexOfId(channel, 'nope'), -1);
  assert.equal(world.indexOfId(channel, String(BigInt(messages[5].id) + 4096n).padStart(16, '0')), -1);
});

test('attachment and avatar bytes: their size, and the start of a file of their type', async (t) => {
  const server = await fake(t);
  const all = server.world.channels.flatMap((c) => messagesOf(server.world, c.id));
  const attachments = all.flatMap((m) => m.attachments);
  const png = attachments.find((a) => a.contentType === 'image/png');
  const pdf = attachments.find((a) => a.contentType === 'application/pdf');
  for (const a of [png, pdf]) {
    const res = await fetch(`${server.url}${a.path}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), a.contentType);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.length, a.size);
    if (a === png) assert.deepEqual(bytes.subarray(0, 8), Buffer.from('89504e470d0a1a0a', 'hex'));
    else assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
  }
  const avatar = server.world.users.find((u) => u.avatarUrl);
  assert.equal((await fetch(`${server.url}${avatar.avatarUrl}`)).status, 200);
  assert.equal((await fetch(`${server.url}/__fake/media/file-0000000000000000-0`)).status, 404);
  assert.equal(server.stats().media, 4);
  assert.equal(server.stats().requests, 0, 'media are not requests to the source');
});

test('the control routes add a message, a user and a member, which the world then serves', async (t) => {
  let clock = Date.now();
  const server = await fake(t, { world: { clock: () => clock } });
  const channel = server.world.channels[1];
  const before = server.world.messageCount(channel.id);
  /** @returns {Promise<{ status: number, body: any }>} */
  const post = async (path, body) => {
    const r = await fetch(`${server.url}/__fake/${path}`, { method: 'POST', body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  };
  const user = await post('users', { name: 'newcomer' });
  assert.equal(user.status, 200);
  assert.equal(server.world.user(user.body.id).name, 'newcomer');
  assert.equal((await post('members', { channelId: channel.id, userId: user.body.id })).status, 200);
  assert.ok(server.world.channel(channel.id).members.some((m) => m.userId === user.body.id));
  const untouched = new GeneratedWorld();
  assert.deepEqual(
    messagesOf(server.world, channel.id),
    messagesOf(untouched, channel.id),
    'a new member changes no message already there',
  );
  const text = `hello @newcomer and @${server.world.users[0].name}.`;
  const added = await post('messages', { channelId: channel.id, senderId: user.body.id, text });
  assert.equal(added.status, 200);
  assert.equal(added.body.sentAtMs, clock, 'an added message carries the real now');
  assert.deepEqual(added.body.mentions, [user.body.id, server.world.users[0].id]);
  clock -= 60_000;
  const second = await post('messages', { channelId: channel.id, senderId: user.body.id, text: 'late clock' });
  assert.ok(second.body.sentAtMs > added.body.sentAtMs && second.body.id > added.body.id, 'order is kept');

  const { items } = await getJson(`${server.url}/channels/${channel.id}/messages?from=${before}`, { headers: AUTH });
  assert.deepEqual(
    items.map((m) => m.text),
    [text, 'late clock'],
  );
  assert.equal(server.world.indexOfId(channel.id, added.body.id), before);
  assert.equal(server.world.indexAtOrAfter(channel.id, added.body.sentAtMs), before);
  const world = await getJson(`${server.url}/__fake/world`);
  assert.equal(world.messages, 3002);
  assert.equal(world.channels.find((c) => c.id === channel.id).messages, before + 2);
  assert.equal((await getJson(`${server.url}/__fake/stats`)).messages, 3002);

  const nowhere = { channelId: 'channel-9999', senderId: user.body.id, text: 'x' };
  assert.equal((await post('messages', nowhere)).status, 404);
  assert.equal((await post('messages', { channelId: channel.id, senderId: user.body.id })).status, 400);
  assert.equal((await post('users', { id: user.body.id, name: 'again' })).status, 409);
  const taken = await post('users', { id: `user-00${server.world.users.length + 2}`, name: 'own id' });
  const next = await post('users', { name: 'numbered' });
  assert.equal(next.status, 200);
  assert.notEqual(next.body.id, taken.body.id, 'the next number skips an id taken by hand');
});

test("credentials: without them the source's own 401, counted", async (t) => {
  const server = await fake(t);
  const res = await fetch(`${server.url}/channels`, { headers: { authorization: 'Bearer wrong' } });
  assert.equal(res.status, 401);
  assert.deepEqual(await res.json(), { echo: 'invalid_auth' });
  assert.equal((await fetch(`${server.url}/channels`, { headers: AUTH })).status, 200);
  assert.deepEqual(server.env, { ECHO_TOKEN });
  const stats = server.stats();
  assert.equal(stats.unauthorized, 1);
  assert.equal(stats.requests, 2);
  assert.deepEqual(stats.byPath, { '/channels': 2 });
});

test("beyond the per-minute budget: the source's 429 with its wait; its rate headers on every answer", async (t) => {
  let now = 1_000_000;
  const server = await fake(t, { requestsPerMinute: 3, now: () => now });
  const get = () => fetch(`${server.url}/channels`, { headers: AUTH });
  const remaining = [];
  for (let i = 0; i < 3; i++) {
    now += 1000;
    const res = await get();
    assert.equal(res.status, 200);
    remaining.push(res.headers.get('x-echo-remaining'));
  }
  assert.deepEqual(remaining, ['2', '1', '0']);
  const limited = await get();
  assert.equal(limited.status, 429);
  // The first of the three leaves the window 60 s after it came: 58 s from the fourth.
  assert.deepEqual(await limited.json(), { echo: 'rate_limited', retryAfterMs: 58_000, limit: 3 });
  assert.equal(limited.headers.get('retry-after-ms'), '58000');
  assert.equal(limited.headers.get('x-echo-limit'), '3');
  assert.equal(server.stats().rateLimited, 1);
  now += 58_000;
  assert.equal((await get()).status, 200, 'a slot frees once the first request leaves the window');
});

test("faults: spurious 429s in the source's shape, 500s and dropped connections, by the seed", async (t) => {
  const spurious = await fake(t, { faults: { spurious429: 1 }, requestsPerMinute: 100 });
  const res = await fetch(`${spurious.url}/channels`, { headers: AUTH });
  assert.equal(res.status, 429);
  assert.equal(/** @type {any} */ (await res.json()).echo, 'rate_limited');
  assert.equal(spurious.stats().faults.spurious429, 1);
  assert.equal(res.headers.get('x-echo-remaining'), '99', 'a spurious 429 costs no budget');

  const failing = await fake(t, { faults: { fail500Before: 1 } });
  assert.equal((await fetch(`${failing.url}/channels`, { headers: AUTH })).status, 500);
  const dropping = await fake(t, { faults: { drop: 1 } });
  await assert.rejects(fetch(`${dropping.url}/channels`, { headers: AUTH }));
  assert.equal(dropping.stats().faults.drop, 1);

  const statuses = async (seed) => {
    const server = await fake(t, { seed, faults: { fail500Before: 0.5 } });
    const out = [];
    for (let i = 0; i < 20; i++) out.push((await fetch(`${server.url}/channels`, { headers: AUTH })).status);
    return out.join(',');
  };
  const first = await statuses(5);
  assert.match(first, /200/);
  assert.match(first, /500/);
  assert.equal(await statuses(5), first, 'the same seed fails the same requests');
  assert.notEqual(await statuses(6), first);
});

test('bodies: JSON and forms reach the route parsed', async (t) => {
  const server = await fake(t);
  const echo = (body, type) =>
    fetch(`${server.url}/echo`, { method: 'POST', headers: { ...AUTH, 'content-type': type }, body }).then((r) =>
      r.json(),
    );
  assert.deepEqual(await echo('{"a":[1,2]}', 'application/json'), { got: { a: [1, 2] } });
  assert.deepEqual(await echo('a=1&b=x%20y&a=2', 'application/x-www-form-urlencoded'), {
    got: { a: ['1', '2'], b: 'x y' },
  });
  // `curl -d '{...}'` sends JSON labelled as a form.
  assert.deepEqual(await echo('{"a":1}', 'application/x-www-form-urlencoded'), { got: { a: 1 } });
  assert.equal((await fetch(`${server.url}/nowhere`, { headers: AUTH })).status, 404);
});

test('byPath stays bounded when a source names every message in its paths', async (t) => {
  const server = await fake(t);
  for (let i = 0; i < 1010; i++) await (await fetch(`${server.url}/messages/m${i}`, { headers: AUTH })).arrayBuffer();
  const { byPath, requests } = server.stats();
  assert.equal(requests, 1010);
  assert.equal(Object.keys(byPath).length, 1001);
  assert.equal(byPath['(other paths)'], 10);
});

test("a route sees the URL on the client's origin, to build absolute next links on", async (t) => {
  const server = await fake(t);
  const seen = await getJson(`${server.url}/whoami?page=2`, { headers: AUTH });
  assert.equal(seen.href, `${server.url}/whoami?page=2`);
  const local = await getJson(`http://localhost:${server.port}/whoami`, { headers: AUTH });
  assert.equal(local.href, `http://localhost:${server.port}/whoami`);
  const { request } = await import('node:http');
  const odd = await new Promise((resolve, reject) => {
    const req = request({ port: server.port, path: '//elsewhere.example/whoami', headers: AUTH }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(new URL(odd.href).host, `localhost:${server.port}`, 'a path like //host stays on this origin');
});

test('tls: the fake serves HTTPS with the certificate its handle gives', async (t) => {
  const server = await fake(t, { tls: 'self-signed' });
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const { request } = await import('node:https');
  const status = await new Promise((resolve, reject) => {
    const req = request(`${server.url}/channels`, { ca: server.certificate, headers: AUTH }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 200);
});

test('two fakes of one source in one process share nothing: each its token, origin and world', async (t) => {
  const [a, b] = await Promise.all([startFake('slack'), startFake('slack', { world: { seed: 2 } })]);
  t.after(() => Promise.all([a.close(), b.close()]));
  assert.notEqual(a.env.SLACK_TOKEN, b.env.SLACK_TOKEN);
  /** @returns {Promise<any>} */
  const call = (fake, method, token, params = '') =>
    getJson(`${fake.url}/${method}?${params}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal((await call(b, 'users.list', a.env.SLACK_TOKEN)).error, 'invalid_auth', "a's token is not b's");
  for (const fake of [a, b]) {
    const { channels } = await call(fake, 'conversations.list', fake.env.SLACK_TOKEN, 'types=public_channel');
    const { messages } = await call(fake, 'conversations.history', fake.env.SLACK_TOKEN, `channel=${channels[0].id}`);
    const file = messages.flatMap((m) => m.files ?? [])[0];
    assert.ok(file.url_private.startsWith(`${fake.url}/files-pri/`), 'its files on its own origin');
  }
  assert.notDeepEqual(a.world.channels, b.world.channels);
});

test("a spurious 429 asks for the wait the test set, in the source's own header", async (t) => {
  const echo = await fake(t, { faults: { spurious429: 1 }, retryAfterMs: 0 });
  const res = await fetch(`${echo.url}/channels`, { headers: AUTH });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after-ms'), '0');
  const slack = await startFake('slack', { faults: { spurious429: 1 }, retryAfterMs: 0 });
  t.after(() => slack.close());
  const limited = await fetch(`${slack.url}/users.list`, {
    headers: { authorization: `Bearer ${slack.env.SLACK_TOKEN}` },
  });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '0', 'not rounded up to a second');
});

test("signed media links live as long as the test says, on the fake's clock", async (t) => {
  const clock = manualClock();
  const stream = await startFake('stream', { now: clock.now, linkTtlMs: 60_000 });
  t.after(() => stream.close());
  const { world } = stream;
  const withFile = world.channels
    .flatMap((c) => Array.from({ length: world.messageCount(c.id) }, (_, i) => world.messageAt(c.id, i)))
    .find((m) => m.attachments.length > 0);
  const auth = {
    authorization: streamServerToken(stream.env.STREAM_API_SECRET),
    'stream-auth-type': 'jwt',
  };
  const asked = `${stream.url}/messages/${withFile.id}?api_key=${stream.env.STREAM_API_KEY}`;
  const { message } = await getJson(asked, { headers: auth });
  const link = message.attachments[0].asset_url ?? message.attachments[0].image_url;
  assert.match(link, new RegExp(`[?&]Expires=${Math.floor((clock.now() + 60_000) / 1000)}&`));
  assert.equal((await fetch(link)).status, 200);
  clock.advance(59_000);
  assert.equal((await fetch(link)).status, 200, 'alive until its time');
  clock.advance(2000);
  const expired = await fetch(link);
  assert.equal(expired.status, 403);
  assert.match(await expired.text(), /Request has expired/);
});

test('refuseAfter: the credential refused after n requests, as if revoked; undefined lifts it', async (t) => {
  const server = await fake(t);
  const get = async () => (await fetch(`${server.url}/channels`, { headers: AUTH })).status;
  assert.equal(await get(), 200);
  server.refuseAfter(2);
  assert.deepEqual([await get(), await get(), await get()], [200, 200, 401]);
  server.refuseAfter(undefined);
  assert.equal(await get(), 200);
  assert.equal(server.stats().unauthorized, 1);
});
