// The sandbox's reads (read-api.md) over what it stored: numbered pages, cursor pages, ids
// lower-cased, and the options verify is tested with. Real server on loopback, real fetch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, importAll, message, readAllMessages, readSandbox, T0, user } from '../../sandbox-read-helpers.mjs';

test('users: numbered pages end on a short page, total stays 0, ids are lower-cased', async (t) => {
  const s = await readSandbox(t);
  const users = ['Bob', 'u2', 'u3', 'u4', 'u5'].map((uid) => user(uid, { tags: ['t'] }));
  users.push(user('gone', { deactivatedAt: T0 }));
  await importAll(s, 'users', users, (u) => u.uid);
  const pages = [];
  for (let page = 1; page <= 4; page++) pages.push((await call(s, `users?perPage=2&page=${page}`)).json);
  assert.deepEqual(
    pages.map((p) => p.data.map((u) => u.uid)),
    [['bob', 'u2'], ['u3', 'u4'], ['u5'], []],
  );
  assert.deepEqual(pages[2].meta.pagination, { total: 0, count: 1, per_page: 2, current_page: 3, total_pages: 3 });
  assert.equal(pages[0].data[0].tags, undefined);
  assert.deepEqual((await call(s, 'users?withTags=true')).json.data[0].tags, ['t']);
  assert.equal((await call(s, 'users?perPage=5000')).json.meta.pagination.per_page, 1000);
  assert.deepEqual((await call(s, 'users?withDeactivated=true')).json.data.length, 6);
  assert.deepEqual(
    (await call(s, 'users?onlyDeactivated=true')).json.data.map((u) => u.uid),
    ['gone'],
  );

  const bob = await call(s, 'users/BOB');
  assert.equal(bob.status, 200);
  assert.equal(bob.json.data.uid, 'bob');
  assert.equal(bob.json.data.name, 'User Bob');
  for (const uid of ['nobody', 'gone']) {
    const missing = await call(s, `users/${uid}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'ERR_UID_NOT_FOUND');
  }
  assert.equal((await call(s, 'users?perPage=abc')).json.error.code, 'ERR_BAD_REQUEST');
});

test('groups: sorted pages, membersCount, members by scope, banned users apart', async (t) => {
  const s = await readSandbox(t);
  const group = (guid, name) => ({ guid, name, type: 'public', createdAt: T0 });
  await importAll(s, 'groups', [group('G-B', 'Beta'), group('g-a', 'Alpha'), group('g-c', 'Gamma')], (g) => g.guid);
  await importAll(
    s,
    'users',
    ['u1', 'u2', 'u3'].map((uid) => user(uid)),
    (u) => u.uid,
  );
  const members = [
    { guid: 'G-B', uid: 'U1', scope: 'admin' },
    { guid: 'G-B', uid: 'u2', scope: 'moderator' },
    { guid: 'G-B', uid: 'u3', isBanned: true },
  ];
  await importAll(s, 'members', members, (m) => `${m.guid}_member_${m.uid}`);
  const sorted = await call(s, 'groups?sortBy=name&sortOrder=desc');
  assert.deepEqual(
    sorted.json.data.map((g) => g.guid),
    ['g-c', 'g-b', 'g-a'],
  );
  assert.deepEqual(
    (await call(s, 'groups?perPage=2&page=2')).json.data.map((g) => g.guid),
    ['g-c'],
  );
  const one = await call(s, 'groups/g-B');
  assert.equal(one.json.data.membersCount, 2);
  assert.equal(one.json.data.name, 'Beta');
  const listed = await call(s, 'groups/g-b/members');
  assert.deepEqual(
    listed.json.data.map((m) => [m.uid, m.scope]),
    [
      ['u1', 'admin'],
      ['u2', 'moderator'],
    ],
  );
  assert.equal(listed.json.data[0].name, 'User u1');
  const admins = await call(s, 'groups/g-b/members?scopes=admin');
  assert.deepEqual(
    admins.json.data.map((m) => m.uid),
    ['u1'],
  );
  assert.deepEqual(
    (await call(s, 'groups/g-b/bannedusers')).json.data.map((m) => m.uid),
    ['u3'],
  );
  const missing = await call(s, 'groups/nope/members');
  assert.equal(missing.status, 404);
  assert.equal(missing.json.error.code, 'ERR_GUID_NOT_FOUND');
});

test('messages: cursor pages over 2,500 messages, each once, with the ids the import answered', async (t) => {
  const s = await readSandbox(t);
  const all = [];
  for (let i = 0; i < 2500; i++) {
    const toGroup = i % 3 === 0;
    all.push(
      message(`M-${i}`, {
        sentAt: T0 + Math.floor(i / 7),
        ...(toGroup ? { receiverType: 'group', receiver: 'G1' } : {}),
      }),
    );
  }
  const answers = await importAll(s, 'messages', all, (m) => m.muid);
  const { messages, pages } = await readAllMessages(s, 'messages');
  assert.equal(pages, 3);
  assert.equal(messages.length, 2500);
  for (const m of messages) assert.equal(answers[m.muid.toUpperCase()].data.id, m.id);
  assert.equal(messages[0].muid, 'm-0');
  assert.equal(messages[3].conversationId, 'group_g1');
  assert.equal(messages[1].conversationId, 'u1_user_u2');
  assert.equal(messages[1].data.text, 'text of M-1');
  assert.ok(messages.every((m, i) => i === 0 || Number(m.id) > Number(messages[i - 1].id)));

  const last = await call(s, `messages?limit=1000&id=${messages[1999].id}&affix=append`);
  assert.equal(last.json.data.length, 500);
  assert.equal(last.json.meta.next, undefined);
  assert.deepEqual(last.json.meta.current, { limit: 1000, count: 500 });
  assert.equal(last.json.meta.previous.id, messages[2000].id);
  const before = await call(s, `messages?limit=3&id=${messages[10].id}&affix=prepend`);
  assert.deepEqual(
    before.json.data.map((m) => m.muid),
    ['m-7', 'm-8', 'm-9'],
  );
  assert.equal(before.json.meta.next.id, messages[9].id);
  assert.equal((await call(s, 'messages')).json.data.length, 10, 'limit defaults to 10');
  assert.equal((await call(s, 'messages?limit=5000')).json.meta.current.limit, 1000);

  assert.equal((await call(s, 'groups/G1/messages')).json.error.code, 'ERR_GUID_NOT_FOUND');
  await importAll(s, 'groups', [{ guid: 'G1', name: 'One', type: 'public' }], (g) => g.guid);
  const group = await readAllMessages(s, 'groups/G1/messages', { limit: 100 });
  assert.equal(group.messages.length, 834);
  assert.ok(group.messages.every((m) => m.receiver === 'g1'));
  const byConversation = await readAllMessages(s, 'messages?conversationId=group_g1&receiverType=group');
  assert.equal(byConversation.messages.length, 834);
  const window = await readAllMessages(s, `messages?fromTimestamp=${T0 + 10}&toTimestamp=${T0 + 11}`);
  assert.equal(window.messages.length, 14);

  await importAll(s, 'users', [user('u1'), user('U2')], (u) => u.uid);
  const noHeader = await call(s, 'users/u1/messages');
  assert.equal(noHeader.status, 400);
  const pair = await readAllMessages(s, 'users/U2/messages', { headers: { onBehalfOf: 'U1' } });
  assert.equal(pair.messages.length, 2500 - 834);
  const one = await call(s, `messages/${messages[5].id}`);
  assert.deepEqual(one.json.data, messages[5]);
  const unknown = await call(s, 'messages/999');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'ERR_MESSAGE_ID_NOT_FOUND');
});

test('retention: old messages are accepted by the import and never read; reads without muid', async (t) => {
  const now = T0 + 400 * 86_400;
  const s = await readSandbox(t, { now: () => now * 1000, retentionDays: 183, readsWithoutMuid: true });
  const all = [0, 100, 200, 300, 399].map((days) => message(`d${days}`, { sentAt: T0 + days * 86_400 }));
  const answers = await importAll(s, 'messages', all, (m) => m.muid);
  assert.ok(Object.values(answers).every((a) => a.success === true));
  const { messages } = await readAllMessages(s, 'messages');
  assert.deepEqual(
    messages.map((m) => m.data.text),
    ['text of d300', 'text of d399'],
  );
  assert.ok(messages.every((m) => !('muid' in m)));
  const old = await call(s, `messages/${answers.d100.data.id}`);
  assert.equal(old.json.error.code, 'ERR_MESSAGE_ID_NOT_FOUND');
  assert.equal(Object.keys(s.records().messages).length, 5);
});

test('keepRecords false: reads list ids, scopes and message ids without content', async (t) => {
  const s = await readSandbox(t, { keepRecords: false });
  await importAll(s, 'users', [user('Ann'), user('bob')], (u) => u.uid);
  await importAll(s, 'groups', [{ guid: 'g1', name: 'G', type: 'public' }], (g) => g.guid);
  await importAll(s, 'members', [{ guid: 'g1', uid: 'ann', scope: 'admin' }], (m) => `${m.guid}_member_${m.uid}`);
  const sent = await importAll(
    s,
    'messages',
    [message('m1'), message('m2', { receiverType: 'group', receiver: 'g1' })],
    (m) => m.muid,
  );
  assert.deepEqual((await call(s, 'users')).json.data, [{ uid: 'ann' }, { uid: 'bob' }]);
  assert.deepEqual((await call(s, 'groups/g1')).json.data, { guid: 'g1', membersCount: 1 });
  assert.deepEqual((await call(s, 'groups/g1/members')).json.data, [{ uid: 'ann', scope: 'admin' }]);
  const { messages } = await readAllMessages(s, 'messages');
  assert.deepEqual(messages[1], {
    id: sent.m2.data.id,
    muid: 'm2',
    conversationId: 'group_g1',
    sender: 'u1',
    receiverType: 'group',
    receiver: 'g1',
    sentAt: T0 + 100,
    updatedAt: T0 + 100,
  });
  assert.equal(s.records().messages.m1, true);
});

test('groupReadsWithoutMetadata: group lists and single reads leave metadata out, users keep theirs', async (t) => {
  const s = await readSandbox(t, { groupReadsWithoutMetadata: true });
  await importAll(s, 'users', [user('ann', { metadata: { a: 1 } })], (u) => u.uid);
  const group = { guid: 'g1', name: 'G', type: 'public', metadata: { team: 'x' } };
  await importAll(s, 'groups', [group], (g) => g.guid);
  const [listed] = (await call(s, 'groups')).json.data;
  assert.equal(listed.name, 'G');
  assert.ok(!('metadata' in listed));
  assert.ok(!('metadata' in (await call(s, 'groups/g1')).json.data));
  assert.deepEqual((await call(s, 'users/ann')).json.data.metadata, { a: 1 });
  // Stored as sent: only the reads leave it out.
  assert.deepEqual(/** @type {any} */ (s.records().groups.g1).metadata, { team: 'x' });
});
