// The sandbox's lost-records fault, read rate limit, auth on reads and deletes (read-api.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, importAll, message, readAllMessages, readSandbox, user } from '../../sandbox-read-helpers.mjs';

test('lost records: answered success, not stored, listed, stored when sent again', async (t) => {
  const s = await readSandbox(t, { faults: { loseShare: 0.1, losePattern: '^m-7$' } });
  const users = Array.from({ length: 200 }, (_, i) => user(`U${i}`));
  const answers = await importAll(s, 'users', users, (u) => u.uid);
  assert.ok(Object.values(answers).every((a) => a.success === true));
  const lost = s.lost().users;
  assert.ok(lost.length > 5 && lost.length < 40, `about 10 % lost, got ${lost.length}`);
  const listed = (await call(s, 'users?perPage=1000')).json.data.map((u) => u.uid);
  assert.equal(listed.length, 200 - lost.length);
  for (const uid of lost) assert.ok(!listed.includes(uid) && !(uid in s.records().users));
  const control = /** @type {any} */ (await fetch(`${s.url}/__sandbox/lost`).then((r) => r.json()));
  assert.deepEqual(control.users, lost);
  assert.equal(s.stats().perEntity.users.lost, lost.length);

  // The same seed and share choose the same records, whatever the order they arrive in.
  const again = await readSandbox(t, { faults: { loseShare: 0.1 } });
  await importAll(again, 'users', users.toReversed(), (u) => u.uid);
  assert.deepEqual(again.lost().users.toSorted(), lost.toSorted());

  // A repair sends them again: now they are stored.
  await importAll(
    s,
    'users',
    users.filter((u) => lost.includes(u.uid.toLowerCase())),
    (u) => u.uid,
  );
  assert.equal((await call(s, 'users?perPage=1000')).json.data.length, 200);

  const sent = await importAll(s, 'messages', [message('m-6'), message('M-7'), message('m-8')], (m) => m.muid);
  assert.ok(sent['M-7'].success && sent['M-7'].data.id);
  const { messages } = await readAllMessages(s, 'messages');
  assert.deepEqual(
    messages.map((m) => m.muid).filter((m) => m.startsWith('m-')),
    ['m-6', 'm-8'],
  );
  assert.ok(s.lost().messages.includes('m-7'));
});

test('read rate limit: 429 with Retry-After and rate headers; imports keep their own window', async (t) => {
  const s = await readSandbox(t, { readRequestsPerMinute: 2, rateHeaders: 'compact' });
  const first = await call(s, 'users');
  assert.equal(first.headers.get('x-ratelimit-limit'), '2');
  assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
  await call(s, 'groups');
  const limited = await call(s, 'messages');
  assert.equal(limited.status, 429);
  assert.equal(limited.json.error.code, 'ERR_TOO_MANY_REQUESTS');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  assert.ok(Number(limited.headers.get('x-ratelimit-reset')) > 0);
  await importAll(s, 'users', [user('u1')], (u) => u.uid);
  assert.equal(s.stats().rateLimited, 1);
});

test('auth, versions and unknown endpoints', async (t) => {
  const s = await readSandbox(t, { apiVersion: 'v3.0' });
  assert.equal((await call(s, 'users', { key: null })).json.error.code, 'AUTH_ERR_EMPTY_APIKEY');
  assert.equal((await call(s, 'users', { key: 'wrong' })).json.error.code, 'AUTH_ERR_APIKEY_NOT_FOUND');
  assert.equal((await call(s, 'users', { key: 'wrong' })).status, 401);
  assert.equal((await call(s, 'users', { version: 'v3.0' })).status, 200);
  assert.equal((await call(s, 'users', { version: 'v3' })).status, 200);
  assert.equal((await call(s, 'users', { version: 'v2' })).status, 404);
  const unknown = await call(s, 'users/u1/friends');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'ERR_API_NOT_FOUND');
  assert.equal(s.stats().readRequests, 6, 'the v2 request is no read');
});

test('deletes: deactivate or delete users, groups with members, members, messages', async (t) => {
  const s = await readSandbox(t);
  await importAll(s, 'users', [user('Ann'), user('bob'), user('cy')], (u) => u.uid);
  await importAll(s, 'groups', [{ guid: 'g1', name: 'G', type: 'public' }], (g) => g.guid);
  const members = [
    { guid: 'g1', uid: 'ann' },
    { guid: 'g1', uid: 'bob' },
  ];
  await importAll(s, 'members', members, (m) => `${m.guid}_member_${m.uid}`);

  assert.equal((await call(s, 'users/ANN', { method: 'DELETE' })).status, 200);
  assert.equal((await call(s, 'users/ann')).json.error.code, 'ERR_UID_NOT_FOUND');
  assert.deepEqual(
    (await call(s, 'users?onlyDeactivated=true')).json.data.map((u) => u.uid),
    ['ann'],
  );
  const again = await importAll(s, 'users', [user('ann')], (u) => u.uid);
  assert.equal(again.ann.error.code, 'ERR_UID_ALREADY_EXISTS', 'a deactivated user keeps its uid');
  await call(s, 'users/ann', { method: 'DELETE', body: { permanent: true } });
  assert.equal((await call(s, 'users?withDeactivated=true')).json.data.length, 2);
  assert.equal((await importAll(s, 'users', [user('ann')], (u) => u.uid)).ann.success, true);

  assert.equal((await call(s, 'groups/g1/members/BOB', { method: 'DELETE' })).status, 200);
  assert.deepEqual(
    (await call(s, 'groups/g1/members')).json.data.map((m) => m.uid),
    ['ann'],
  );
  assert.equal((await call(s, 'groups/g1/members/bob', { method: 'DELETE' })).json.error.code, 'ERR_NOT_A_MEMBER');
  assert.equal((await call(s, 'groups/G1', { method: 'DELETE' })).status, 200);
  assert.equal((await call(s, 'groups/g1')).json.error.code, 'ERR_GUID_NOT_FOUND');
  assert.deepEqual(Object.keys(s.records().members), []);
  assert.equal((await call(s, 'groups/g1', { method: 'DELETE' })).status, 404);

  const sent = await importAll(s, 'messages', [message('m1'), message('m2')], (m) => m.muid);
  const [id1, id2] = [sent.m1.data.id, sent.m2.data.id];
  await call(s, `messages/${id1}`, { method: 'DELETE', body: { permanent: true } });
  assert.equal((await call(s, `messages/${id1}`)).json.error.code, 'ERR_MESSAGE_ID_NOT_FOUND');
  await call(s, `messages/${id2}`, { method: 'DELETE' });
  assert.equal(typeof (await call(s, `messages/${id2}`)).json.data.deletedAt, 'number');
  const resent = await importAll(s, 'messages', [message('m1'), message('m2')], (m) => m.muid);
  assert.equal(resent.m1.success, true, 'a permanently deleted message can be imported again');
  assert.equal(resent.m2.error.code, 'ERR_IMPORT_MUID_ALREADY_EXISTS');
});
