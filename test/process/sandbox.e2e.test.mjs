// The sandbox is the stand-in for the hosted import API in every other integration test and in the
// bench, so these tests pin its contract (import-api.md) with a real server and real fetch calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_DEFAULT_API_KEY, startSandbox } from '../../dist/sandbox/index.js';
import { API_KEY, fixtureWorkspace, runCli, spawnCli, waitFor, waitForOutput } from '../helpers.mjs';

const KEY = 'test-key-7f3a91';
const T0 = 1_700_000_000; // UNIX seconds
const fixedClock =
  (seconds = T0 + 86_400) =>
  () =>
    seconds * 1000;

/**
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('../../dist/sandbox/index.js').SandboxOptions>} [options]
 * @returns {Promise<import('../helpers.mjs').TestSandbox>}
 */
async function sandbox(t, options = {}) {
  const s = await startSandbox({ apiKey: KEY, ...options });
  t.after(() => s.close());
  return s;
}

/**
 * @param {{ url: string }} s
 * @param {string} entity
 * @param {unknown} body
 * @param {{ key?: string | null, contentType?: string, version?: string, signal?: AbortSignal }} [options]
 */
async function post(s, entity, body, { key = KEY, contentType = 'application/json', version = 'v3.0', signal } = {}) {
  const headers = { 'content-type': contentType };
  if (key !== null) headers.apikey = key;
  const res = await fetch(`${s.url}/${version}/data_import/${entity}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const user = (uid, extra = {}) => ({ uid, name: `User ${uid}`, ...extra });
const usersBody = (...list) => ({ users: Object.fromEntries(list.map((u) => [u.uid, u])) });
const message = (muid, extra = {}) => ({
  muid,
  sender: 'u1',
  receiverType: 'user',
  receiver: 'u2',
  sentAt: T0 + 100,
  type: 'text',
  data: { text: 'hello' },
  ...extra,
});

test('the demo key is the documented one', () => {
  assert.equal(SANDBOX_DEFAULT_API_KEY, 'sandbox-key');
});

test('auth: missing and wrong keys get 401 with distinct codes, and the key is never echoed', async (t) => {
  const s = await sandbox(t);
  const missing = await post(s, 'users', usersBody(user('u1')), { key: null });
  assert.equal(missing.status, 401);
  assert.equal(missing.json.error.code, 'AUTH_ERR_EMPTY_APIKEY');
  assert.equal(typeof missing.json.error.message, 'string');

  const wrong = await post(s, 'users', usersBody(user('u1')), { key: 'wrong-secret-xyz' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.error.code, 'AUTH_ERR_APIKEY_NOT_FOUND');
  assert.ok(!wrong.text.includes('wrong-secret-xyz'));
  assert.ok(!wrong.text.includes(KEY));

  // Header names are case-insensitive; the vendor writes `apikey`, the spec `apiKey`.
  const res = await fetch(`${s.url}/v3.0/data_import/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', APIKEY: KEY },
    body: JSON.stringify(usersBody(user('u1'))),
  });
  assert.equal(res.status, 200);
  assert.equal(/** @type {any} */ (await res.json()).data.u1.success, true);

  const stats = s.stats();
  assert.equal(stats.byStatus['401'], 2);
  assert.equal(stats.perEntity.users.stored, 1);
  assert.ok(!JSON.stringify(stats).includes(KEY));
});

test('stores users, lower-cases ids, and answers ERR_UID_ALREADY_EXISTS on re-send (Bob/bob collide)', async (t) => {
  const s = await sandbox(t);
  const first = await post(s, 'users', usersBody(user('Bob')));
  assert.equal(first.status, 200);
  assert.equal(first.json.data.Bob.success, true);
  assert.equal(first.json.data.Bob.data.uid, 'bob');

  const again = await post(s, 'users', usersBody(user('Bob')), { version: 'v3' });
  assert.equal(again.status, 200);
  assert.equal(again.json.data.Bob.success, false);
  assert.equal(again.json.data.Bob.error.code, 'ERR_UID_ALREADY_EXISTS');

  const lower = await post(s, 'users', usersBody(user('bob'), user('carol')));
  assert.equal(lower.json.data.bob.error.code, 'ERR_UID_ALREADY_EXISTS');
  assert.equal(lower.json.data.carol.success, true);

  const records = s.records();
  assert.deepEqual(Object.keys(records.users).sort(), ['bob', 'carol']);
  assert.equal(records.users.bob.name, 'User Bob');
  const u = s.stats().perEntity.users;
  assert.deepEqual(
    {
      stored: u.stored,
      alreadyExists: u.alreadyExists,
      rejected: u.rejected,
      requests: u.requests,
      recordsReceived: u.recordsReceived,
    },
    { stored: 2, alreadyExists: 2, rejected: 0, requests: 3, recordsReceived: 4 },
  );
});

test('already-exists codes for groups, members and messages', async (t) => {
  const s = await sandbox(t, { now: fixedClock() });
  const bodies = {
    groups: { groups: { G1: { guid: 'G1', name: 'General', type: 'public', createdAt: T0 } } },
    members: { members: { G1_member_U1: { guid: 'G1', uid: 'U1', scope: 'admin', joinedAt: T0 + 5 } } },
    messages: { messages: { M1: message('M1') } },
  };
  const expected = {
    groups: 'ERR_GUID_ALREADY_EXISTS',
    members: 'ERR_ALREADY_JOINED',
    messages: 'ERR_IMPORT_MUID_ALREADY_EXISTS',
  };
  for (const [entity, body] of Object.entries(bodies)) {
    const key = Object.keys(body[entity])[0];
    const first = await post(s, entity, body);
    assert.equal(first.json.data[key].success, true, `${entity} first send`);
    const again = await post(s, entity, body);
    assert.equal(again.json.data[key].error.code, expected[entity]);
    assert.equal(s.stats().perEntity[entity].alreadyExists, 1);
  }
  assert.ok('g1_member_u1' in s.records().members);
  assert.equal(s.records().messages.m1.id.match(/^\d+$/)?.length, 1);
});

test('per-record validation for users and groups', async (t) => {
  const s = await sandbox(t, { now: fixedClock() });
  /** @type {[string, string, object, string][]} */
  const cases = [
    ['users', 'bad id!', user('bad id!'), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'u1', { uid: 'u1' }, 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'other', user('u1'), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'x'.repeat(101), user('x'.repeat(101)), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'u2', user('u2', { name: 'n'.repeat(101) }), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'u3', user('u3', { createdAt: T0 * 1000 }), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['users', 'u4', user('u4', { createdAt: 1.5 }), 'ERR_IMPORT_INVALID_USER_FORMAT'],
    ['groups', 'g1', { guid: 'g1', name: 'G', type: 'secret' }, 'ERR_IMPORT_INVALID_GROUP_FORMAT'],
    ['groups', 'g2', { guid: 'g2', name: 'G', type: 'password' }, 'ERR_IMPORT_INVALID_GROUP_FORMAT'],
    ['groups', 'g3', { guid: 'g3', type: 'public' }, 'ERR_IMPORT_INVALID_GROUP_FORMAT'],
  ];
  for (const [entity, key, record, code] of cases) {
    const res = await post(s, entity, { [entity]: { [key]: record } });
    assert.equal(res.status, 200);
    assert.equal(res.json.data[key].success, false, `${entity} ${key}`);
    assert.equal(res.json.data[key].error.code, code, `${entity} ${key}: ${res.json.data[key].error.message}`);
  }
  const stats = s.stats().perEntity;
  assert.equal(stats.users.rejected, 7);
  assert.equal(stats.groups.rejected, 3);
  assert.deepEqual(Object.keys(s.records().users), []);

  // Positive controls: the boundaries themselves pass, numeric-string timestamps are stored as numbers.
  const ok = await post(s, 'users', usersBody(user('x'.repeat(100), { name: 'n'.repeat(100), createdAt: String(T0) })));
  assert.equal(ok.json.data['x'.repeat(100)].success, true);
  assert.equal(s.records().users['x'.repeat(100)].createdAt, T0);
  const pw = await post(s, 'groups', { groups: { g2: { guid: 'g2', name: 'G', type: 'password', password: 'p' } } });
  assert.equal(pw.json.data.g2.success, true);
});

test('per-record validation for members, including ERR_IMPORT_INVALID_JOINEDAT', async (t) => {
  const now = T0 + 86_400;
  const s = await sandbox(t, { now: fixedClock(now) });
  await post(s, 'groups', { groups: { G1: { guid: 'G1', name: 'General', type: 'public', createdAt: T0 } } });
  const m = (extra = {}) => ({ guid: 'g1', uid: 'u1', ...extra });
  /** @type {[string, object, string][]} */
  const cases = [
    ['g1_member_u1', m({ scope: 'owner' }), 'ERR_IMPORT_INVALID_MEMBER_FORMAT'],
    ['g1_member_u1', m({ isBanned: 'yes' }), 'ERR_IMPORT_INVALID_MEMBER_FORMAT'],
    ['g1_member_u9', m(), 'ERR_IMPORT_INVALID_MEMBER_FORMAT'],
    ['g1_member_u1', m({ memberId: 'g1_member_u2' }), 'ERR_IMPORT_INVALID_MEMBER_FORMAT'],
    ['g1_member_', m({ uid: undefined }), 'ERR_IMPORT_INVALID_MEMBER_FORMAT'],
    // Before the stored group's createdAt (the group was sent as G1: lookup is case-insensitive).
    ['g1_member_u1', m({ joinedAt: T0 - 10 }), 'ERR_IMPORT_INVALID_JOINEDAT'],
    // The vendor's constraint is "greater than": a join at the second of creation is refused too.
    ['g1_member_u1', m({ joinedAt: T0 }), 'ERR_IMPORT_INVALID_JOINEDAT'],
    ['g1_member_u1', m({ joinedAt: now + 3600 }), 'ERR_IMPORT_INVALID_JOINEDAT'],
  ];
  for (const [key, record, code] of cases) {
    const res = await post(s, 'members', { members: { [key]: record } });
    assert.equal(res.json.data[key].success, false, key);
    assert.equal(res.json.data[key].error.code, code, `${key}: ${res.json.data[key].error.message}`);
  }
  assert.equal(s.stats().perEntity.members.rejected, cases.length);

  const ok = await post(s, 'members', {
    members: { g1_member_u1: m({ joinedAt: T0 + 1, scope: 'moderator', isBanned: false }) },
  });
  assert.equal(ok.json.data.g1_member_u1.success, true);
  // An unknown group has no createdAt to compare with: only the future check applies.
  const other = await post(s, 'members', { members: { g9_member_u1: { guid: 'g9', uid: 'u1', joinedAt: 86_400 } } });
  assert.equal(other.json.data.g9_member_u1.success, true);
});

test('per-record validation for messages, including ERR_EMPTY_MESSAGE_TEXT and the 10 KB data limit', async (t) => {
  const s = await sandbox(t, { now: fixedClock() });
  const F = 'ERR_IMPORT_INVALID_MESSAGE_FORMAT';
  /** @type {[string, object, string][]} */
  const cases = [
    ['m1', message('m1', { receiverType: 'channel' }), F],
    ['m2', message('m2', { sentAt: undefined }), F],
    ['m3', message('m3', { sentAt: (T0 + 100) * 1000 }), F],
    ['m4', message('m4', { type: 'sticker' }), F],
    ['m5', message('m5', { category: 'system' }), F],
    ['m6', message('m6', { data: { text: 'x'.repeat(10_230) } }), F],
    ['m7', message('m7', { tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }), F],
    ['m8', message('m8', { tags: ['x'.repeat(101)] }), F],
    ['m9', message('m9', { data: 'hello' }), F],
    ['m10', message('m10', { sender: undefined }), F],
    ['m11', message('m11', { data: { text: '' } }), 'ERR_EMPTY_MESSAGE_TEXT'],
    ['m12', message('m12', { data: undefined }), 'ERR_EMPTY_MESSAGE_TEXT'],
    ['m13', message('m13', { data: { attachments: [] } }), 'ERR_EMPTY_MESSAGE_TEXT'],
  ];
  for (const [key, record, code] of cases) {
    const res = await post(s, 'messages', { messages: { [key]: record } });
    assert.equal(res.json.data[key].success, false, key);
    assert.equal(res.json.data[key].error.code, code, `${key}: ${res.json.data[key].error.message}`);
  }
  assert.equal(s.stats().perEntity.messages.rejected, cases.length);
  assert.deepEqual(Object.keys(s.records().messages), []);

  // Exactly 10 240 bytes of data, 25 tags of 100 emoji each, a string sentAt, a custom type: all accepted.
  const good = {
    g1: message('g1', { data: { text: 'x'.repeat(10_229) } }),
    g2: message('g2', { tags: Array.from({ length: 25 }, () => '😀'.repeat(100)) }),
    g3: message('g3', { sentAt: String(T0 + 5), receiverType: 'group', receiver: 'G1' }),
    g4: message('g4', { category: 'custom', type: 'poll', data: { customData: { q: '?' } } }),
    g5: message('g5', { type: 'image', data: { attachments: [{ url: 'https://x/a.png' }] } }),
  };
  const res = await post(s, 'messages', { messages: good });
  for (const key of Object.keys(good)) assert.equal(res.json.data[key].success, true, key);
  const stored = s.records().messages;
  assert.equal(stored.g3.sentAt, T0 + 5);
  assert.equal(stored.g3.receiver, 'g1');
  assert.equal(stored.g3.conversationId, 'group_g1');
});

test('more than maxRecordsPerRequest records refuse the whole request with ERR_IMPORT_LIMIT_EXCEEDED', async (t) => {
  const s = await sandbox(t);
  const many = (n, prefix) => usersBody(...Array.from({ length: n }, (_, i) => user(`${prefix}${i}`)));
  const over = await post(s, 'users', many(51, 'a'));
  assert.equal(over.status, 400);
  assert.equal(over.json.error.code, 'ERR_IMPORT_LIMIT_EXCEEDED');
  assert.deepEqual(Object.keys(s.records().users), []);

  const full = await post(s, 'users', many(50, 'b'));
  assert.equal(full.status, 200);
  assert.equal(Object.values(full.json.data).filter((r) => r.success).length, 50);
  const stats = s.stats();
  assert.equal(stats.perEntity.users.fullRequests, 1);
  assert.equal(stats.perEntity.users.requests, 1);
  assert.equal(stats.maxRecordsInARequest, 51);

  const small = await sandbox(t, { maxRecordsPerRequest: 3 });
  assert.equal((await post(small, 'users', many(4, 'c'))).json.error.code, 'ERR_IMPORT_LIMIT_EXCEEDED');
  assert.equal((await post(small, 'users', many(3, 'c'))).status, 200);
});

test('whole-request errors: 415, bad JSON, wrong shape, unknown path', async (t) => {
  const s = await sandbox(t);
  const plain = await post(s, 'users', usersBody(user('u1')), { contentType: 'text/plain' });
  assert.equal(plain.status, 415);
  assert.equal(typeof plain.json.error.code, 'string');
  const withCharset = await post(s, 'users', usersBody(user('u0')), { contentType: 'application/json; charset=utf-8' });
  assert.equal(withCharset.status, 200);

  const badJson = await post(s, 'users', '{"users": {');
  assert.equal(badJson.status, 400);
  assert.ok(badJson.json.error.code);
  const wrongShape = await post(s, 'users', { messages: { u1: user('u1') } });
  assert.equal(wrongShape.status, 400);
  const arrayShape = await post(s, 'users', { users: [user('u1')] });
  assert.equal(arrayShape.status, 400);
  const unknown = await post(s, 'reactions', { reactions: {} });
  assert.equal(unknown.status, 404);
  assert.ok(unknown.json.error.code);

  const stats = s.stats();
  assert.deepEqual(stats.byStatus, { 200: 1, 400: 3, 404: 1, 415: 1 });
  assert.deepEqual(Object.keys(s.records().users), ['u0']);
});

test('rate limit: sliding window, 429 with Retry-After, headers on every response, 429s not counted', async (t) => {
  let nowMs = T0 * 1000;
  const s = await sandbox(t, { requestsPerMinute: 2, now: () => nowMs });
  const r1 = await post(s, 'users', usersBody(user('u1')));
  assert.equal(r1.status, 200);
  assert.equal(r1.headers.get('x-rate-limit'), '2');
  assert.equal(r1.headers.get('x-rate-limit-remaining'), '1');
  assert.equal(r1.headers.get('x-rate-limit-reset'), String(T0 + 60));
  const r2 = await post(s, 'users', usersBody(user('u2')));
  assert.equal(r2.headers.get('x-rate-limit-remaining'), '0');

  nowMs += 30_000;
  const r3 = await post(s, 'users', usersBody(user('u3')));
  assert.equal(r3.status, 429);
  assert.equal(r3.json.error.code, 'ERR_TOO_MANY_REQUESTS');
  assert.equal(r3.headers.get('retry-after'), '30');
  assert.equal(r3.headers.get('x-rate-limit-reset'), String(T0 + 60));
  assert.equal(r3.headers.get('x-rate-limit-remaining'), '0');
  const unauth = await post(s, 'users', usersBody(user('u3')), { key: 'nope' });
  assert.equal(unauth.headers.get('x-rate-limit'), '2');

  // At T0+60 both first requests leave the window; had the 429 counted, only one slot would be free.
  nowMs += 30_000;
  const r4 = await post(s, 'users', usersBody(user('u3')));
  assert.equal(r4.status, 200);
  assert.equal(r4.headers.get('x-rate-limit-remaining'), '1');
  assert.equal(r4.json.data.u3.success, true);
  const stats = s.stats();
  assert.equal(stats.rateLimited, 1);
  assert.equal(stats.byStatus['429'], 1);

  const unlimited = await sandbox(t);
  const free = await post(unlimited, 'users', usersBody(user('u1')));
  assert.equal(free.headers.get('x-rate-limit'), null);
});

test('fault dropConnection: fetch rejects, nothing stored, the server lives on', async (t) => {
  const s = await sandbox(t, { faults: { dropConnection: 1 } });
  await assert.rejects(post(s, 'users', usersBody(user('u1'))), TypeError);
  await assert.rejects(post(s, 'users', usersBody(user('u2'))), TypeError);
  /** @type {import('../../dist/sandbox/index.js').SandboxStats} */
  const stats = /** @type {any} */ (await (await fetch(`${s.url}/__sandbox/stats`)).json());
  assert.equal(stats.faults.drop, 2);
  assert.equal(stats.requests, 2);
  assert.deepEqual(stats.byStatus, {});
  assert.deepEqual(Object.keys(s.records().users), []);
});

test('fault spurious429: 429 with Retry-After 1 though under the rate, not counted as accepted', async (t) => {
  const s = await sandbox(t, { requestsPerMinute: 10, faults: { spurious429: 1 } });
  for (let i = 0; i < 2; i++) {
    const res = await post(s, 'users', usersBody(user('u1')));
    assert.equal(res.status, 429);
    assert.equal(res.json.error.code, 'ERR_TOO_MANY_REQUESTS');
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(res.headers.get('x-rate-limit-remaining'), '10');
    assert.ok(Number(res.headers.get('x-rate-limit-reset')) >= Math.floor(Date.now() / 1000));
  }
  const stats = s.stats();
  assert.equal(stats.faults.spurious429, 2);
  assert.equal(stats.rateLimited, 0);
  assert.deepEqual(Object.keys(s.records().users), []);
});

test('fault spurious429 with retryAfterMs: the wait asked in seconds, a fraction below one; 0 asks none', async (t) => {
  const now = 1_700_000_000_500;
  /** @type {Array<[number, string, number]>} */
  const cases = [
    [20, '0.02', 1_700_000_001],
    [0, '0', 1_700_000_001],
    [2500, '2.5', 1_700_000_003],
  ];
  for (const [ms, said, reset] of cases) {
    const s = await sandbox(t, { now: () => now, faults: { spurious429: 1, retryAfterMs: ms } });
    const res = await post(s, 'users', usersBody(user('u1')));
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), said);
    // The reset is when the wait ends, in whole seconds (rounded up).
    assert.equal(res.headers.get('x-rate-limit-reset'), String(reset));
  }
  await assert.rejects(
    () => startSandbox({ apiKey: KEY, faults: { retryAfterMs: -1 } }),
    /faults\.retryAfterMs must be an integer >= 0/,
  );
});

test('fault fail500BeforeStore: 500 ERR_EXCEPTION and nothing stored', async (t) => {
  const s = await sandbox(t, { faults: { fail500BeforeStore: 1 } });
  const res = await post(s, 'users', usersBody(user('u1'), user('u2')));
  assert.equal(res.status, 500);
  assert.equal(res.json.error.code, 'ERR_EXCEPTION');
  assert.deepEqual(Object.keys(s.records().users), []);
  assert.equal(s.stats().faults.fail500BeforeStore, 1);
});

test('fault fail500AfterStore: 500, yet the records are stored, and a retry answers already-exists', async (t) => {
  const s = await sandbox(t, { faults: { fail500AfterStore: 1 } });
  const res = await post(s, 'users', usersBody(user('u1'), user('u2', { name: '' })));
  assert.equal(res.status, 500);
  assert.equal(res.json.error.code, 'ERR_EXCEPTION');
  assert.deepEqual(Object.keys(s.records().users), ['u1']);
  await post(s, 'users', usersBody(user('u1')));
  const stats = s.stats();
  assert.equal(stats.faults.fail500AfterStore, 2);
  assert.equal(stats.perEntity.users.stored, 1);
  assert.equal(stats.perEntity.users.alreadyExists, 1);
  assert.equal(stats.perEntity.users.rejected, 1);
});

test('fault slowRate: the answer waits slowMs; a client timeout leaves the record stored afterwards', async (t) => {
  const s = await sandbox(t, { faults: { slowRate: 1, slowMs: 300 } });
  const started = Date.now();
  const res = await post(s, 'users', usersBody(user('u1')));
  assert.ok(Date.now() - started >= 280, `took ${Date.now() - started} ms`);
  assert.equal(res.json.data.u1.success, true);

  await assert.rejects(post(s, 'users', usersBody(user('u2')), { signal: AbortSignal.timeout(80) }), {
    name: 'TimeoutError',
  });
  assert.equal('u2' in s.records().users, false);
  // Stored once its slowMs is over, though nobody waits for the answer any more.
  await waitFor(() => 'u2' in s.records().users, { timeoutMs: 10_000, what: 'u2 stored after the timeout' });
  assert.equal(s.stats().faults.slow, 2);
});

test('poisonIdPattern: records before the poison (in body order) are stored, then 500, every time', async (t) => {
  const s = await sandbox(t, { faults: { poisonIdPattern: '^bad' } });
  // The numeric key after the poison checks body order: JavaScript would list "10" first.
  const body =
    '{"users":{"a1":{"uid":"a1","name":"A"},"bad-1":{"uid":"bad-1","name":"B"},"10":{"uid":"10","name":"T"}}}';
  const first = await post(s, 'users', body);
  assert.equal(first.status, 500);
  assert.equal(first.json.error.code, 'ERR_EXCEPTION');
  assert.deepEqual(Object.keys(s.records().users), ['a1']);
  const again = await post(s, 'users', body);
  assert.equal(again.status, 500);
  const stats = s.stats();
  assert.equal(stats.faults.poison, 2);
  assert.equal(stats.perEntity.users.alreadyExists, 1);

  // Without the poison record the rest goes through: splitting a failing batch isolates it.
  const rest = await post(s, 'users', usersBody({ uid: '10', name: 'T' }));
  assert.equal(rest.json.data['10'].success, true);
});

test('a body repeating a key keeps body order (numeric keys too) and the last value, as JSON.parse does', async (t) => {
  const s = await sandbox(t, { faults: { poisonIdPattern: '^bad' } });
  // The repeated key sends the body down the whole-text path, whose order comes from a scan of its own.
  const body =
    '{"users":{"a1":{"uid":"a1","name":"First"},"7":{"uid":"7","name":"Seven"},"bad-1":{"uid":"bad-1","name":"B"},' +
    '"10":{"uid":"10","name":"T"},"a1":{"uid":"a1","name":"Last"}}}';
  const res = await post(s, 'users', body);
  assert.equal(res.status, 500);
  // Object.keys order would be 7, 10, a1, bad-1: the poison would then come after "10" and store it.
  const held = s.records().users;
  assert.deepEqual(Object.keys(held).sort(), ['7', 'a1']);
  assert.equal(held.a1.name, 'Last');
});

test('faults are reproducible from the seed', async (t) => {
  const run = async (seed) => {
    const s = await sandbox(t, { seed, faults: { fail500BeforeStore: 0.5 } });
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await post(s, 'users', usersBody(user(`u${i}`)))).status);
    return statuses;
  };
  const a = await run(42);
  assert.deepEqual(await run(42), a);
  assert.ok(a.includes(200) && a.includes(500), a.join(','));
});

test("responseStyle 'nested': double data, messages keyed by a new numeric id with muid inside", async (t) => {
  const s = await sandbox(t, { responseStyle: 'nested' });
  const u = await post(s, 'users', usersBody(user('U1')));
  assert.equal(u.json.data.data.U1.success, true);
  assert.equal(u.json.data.data.U1.data.uid, 'u1');

  const res = await post(s, 'messages', { messages: { M1: message('M1'), m2: message('m2', { data: { text: '' } }) } });
  const entries = Object.entries(res.json.data.data);
  assert.equal(entries.length, 2);
  const [okKey, ok] = entries.find(([, r]) => r.success);
  assert.match(okKey, /^\d+$/);
  assert.equal(ok.data.muid, 'm1');
  assert.equal(ok.data.id, okKey);
  const failed = res.json.data.data.m2;
  assert.equal(failed.muid, 'm2');
  assert.equal(failed.error.code, 'ERR_EMPTY_MESSAGE_TEXT');

  // A numeric muid must not be shadowed by a new message id in the same answer.
  const ids = await post(s, 'messages', { messages: { 1000002: message('1000002'), 1000003: message('1000003') } });
  const muids = Object.values(ids.json.data.data)
    .map((r) => r.data.muid)
    .sort();
  assert.deepEqual(muids, ['1000002', '1000003']);

  const flat = await sandbox(t);
  const f = await post(flat, 'messages', { messages: { M1: message('M1') } });
  assert.equal(f.json.data.M1.success, true);
  assert.match(f.json.data.M1.data.id, /^\d+$/);
});

test('stats and records endpoints, reset, keepRecords false, dumpFile, latency', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const dumpFile = join(dir, 'dump.json');
  const s = await startSandbox({ apiKey: KEY, keepRecords: false, dumpFile, latencyMs: 30 });
  const started = Date.now();
  await post(s, 'users', usersBody(user('U1'), user('u2')));
  // Latency is real time by its nature: a small one, seen with its jitter (0.9-1.1 of it).
  assert.ok(Date.now() - started >= 25, 'latency applied');
  await post(s, 'messages', { messages: { m1: message('m1') } });

  const stats = await (await fetch(`${s.url}/__sandbox/stats`)).json();
  assert.deepEqual(stats, s.stats());
  assert.equal(stats.requests, 2);
  assert.equal(stats.perEntity.messages.stored, 1);
  assert.ok(stats.firstRequestAt <= stats.lastRequestAt);
  const records = await (await fetch(`${s.url}/__sandbox/records`)).json();
  assert.deepEqual(records, { users: { u1: true, u2: true }, groups: {}, members: {}, messages: { m1: true } });
  assert.deepEqual(JSON.parse(JSON.stringify(s.records())), records);

  const reset = await fetch(`${s.url}/__sandbox/reset`, { method: 'POST' });
  assert.equal(reset.status, 200);
  assert.equal(s.stats().requests, 0);
  assert.equal(s.stats().firstRequestAt, null);
  assert.deepEqual(Object.keys(s.records().users), []);
  const again = await post(s, 'users', usersBody(user('u1')));
  assert.equal(again.json.data.u1.success, true);

  await s.close();
  const dump = await readFile(dumpFile, 'utf8');
  assert.deepEqual(JSON.parse(dump).users, { u1: true });
  assert.ok(!dump.includes(KEY));
});

test('options are checked before listening', async () => {
  await assert.rejects(startSandbox({ apiKey: '' }), { code: 'SANDBOX_OPTIONS' });
  await assert.rejects(startSandbox({ apiKey: KEY, faults: { dropConnection: 2 } }), { code: 'SANDBOX_OPTIONS' });
  await assert.rejects(startSandbox({ apiKey: KEY, faults: { poisonIdPattern: '(' } }), { code: 'SANDBOX_OPTIONS' });
});

test('chat-migrate sandbox: its banner lists its faults; --seed-users stores the app users first', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cm-seed-'));
  // The user map itself seeds the users it points at (its `to`), as a rehearsal of a user map wants.
  await writeFile(join(dir, 'user-map.csv'), 'from,to\nemp2,bob-prod\nalice@example.com,Alice-Prod\n');
  const child = spawnCli(
    ['sandbox', '--port', '0', '--fail-500-before', '0.1', '--drop', '0.05', '--poison', '^bad-'],
    { cwd: dir },
  );
  t.after(() => child.kill('SIGTERM'));
  const banner = await waitForOutput(child, /injecting faults: (.*)\n/, { stream: 'stdout' });
  assert.equal(banner[1], '500 before storing 10%, dropped connections 5%, poison ids /^bad-/');
  const seeded = spawnCli(['sandbox', '--port', '0', '--json', '--seed-users', 'user-map.csv'], { cwd: dir });
  t.after(() => seeded.kill('SIGTERM'));
  const [line] = await once(seeded.stdout, 'data');
  const started = JSON.parse(String(line));
  assert.deepEqual([started.faults, started.seededUsers], [[], 2]);
  // The CLI's sandbox takes MIGRATE_API_KEY, which spawnCli sets to the tests' key.
  const headers = { apikey: API_KEY };
  for (const uid of ['bob-prod', 'alice-prod']) {
    const read = await fetch(`${started.url}/v3/users/${uid}`, { headers });
    assert.equal(read.status, 200, uid);
  }
  // Seeded, not imported: nothing counts as a request, and an import of the same uid is already there.
  const stats = /** @type {any} */ (await (await fetch(`${started.url}/__sandbox/stats`)).json());
  assert.equal(stats.perEntity.users.stored, 0);
  const body = JSON.stringify({ users: { 'bob-prod': { uid: 'bob-prod', name: 'Bob' } } });
  const post = await fetch(`${started.url}/v3.0/data_import/users`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
  assert.match(await post.text(), /ERR_UID_ALREADY_EXISTS/);
});

test('GET /__sandbox/stats counts what undo deleted, entity by entity, as undo said it would', async (t) => {
  const s = await sandbox(t, { apiKey: API_KEY });
  const dir = await fixtureWorkspace(s.url, { restRequestsPerMinute: 1e9 });
  await runCli(['import'], { cwd: dir });
  const plan = await runCli(['undo', '--dry-run', '--json'], { cwd: dir });
  const { counts } = JSON.parse(plan.stdout);
  const undo = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(undo.code, 0, undo.stderr);
  const stats = /** @type {any} */ (await (await fetch(`${s.url}/__sandbox/stats`)).json());
  const deleted = Object.fromEntries(Object.keys(counts).map((entity) => [entity, stats.perEntity[entity].deleted]));
  assert.deepEqual(deleted, counts);
  assert.ok(counts.messages > 0, 'the fixtures import messages');
});
