// The Sendbird preset on a Data Export in its real layout (fixtures/presets/sendbird), as a folder
// and as a .zip.
import assert from 'node:assert/strict';
import { cp, rename } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../../helpers.mjs';
import { byId, plan, PRESET_FIXTURES, readIdMap, readPlans, zipFolder } from '../../presets-helpers.mjs';

const EXPORT = path.join(PRESET_FIXTURES, 'sendbird');

test('users, channels, members and messages of the export, all accounted for', async () => {
  const { plans, idMapFile } = await plan('sendbird', EXPORT);
  const r = await readPlans(plans);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.deepEqual(r[e].errors, [], e);
    assert.deepEqual(r[e].problems, [], e);
  }
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [10, 5, 12, 13]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.members.skipped, { 'direct-conversation': 2 });
  assert.deepEqual(r.messages.skipped, { 'soft-deleted': 1 });

  const users = byId(r.users.sent, 'uid');
  assert.deepEqual(users.alice, {
    uid: 'alice',
    name: 'Alice Liddell',
    avatar: 'https://static.example.com/avatars/alice.png',
    createdAt: 1640995200,
    lastActiveAt: 1651000000,
    metadata: { team: 'red', preferredLanguages: ['en'], sendbirdUserId: 'alice' },
  });
  assert.equal(users.eve.deactivatedAt, 1645000000, 'a deactivated user keeps the last time known');
  assert.deepEqual(
    ['frank', 'grace', 'heidi', 'ivan', 'system'].map((u) => users[u]?.metadata.from),
    ['messages', 'messages', 'messages', 'messages', 'preset'],
  );
  assert.equal(
    users.grace.name,
    'Grace Hopper',
    'a sender missing from the users files is created from what its messages say',
  );

  const groups = byId(r.groups.sent, 'guid');
  assert.deepEqual(groups.sendbird_group_channel_team, {
    guid: 'sendbird_group_channel_team',
    name: 'Team',
    type: 'private',
    owner: 'alice',
    icon: 'https://static.example.com/covers/team.jpg',
    createdAt: 1650000000,
    tags: ['team'],
    metadata: {
      sendbirdChannelUrl: 'sendbird_group_channel_team',
      sendbirdType: 'group',
      customType: 'team',
      data: '{"topic":"planning"}',
    },
  });
  assert.equal(groups.sendbird_group_channel_public.type, 'public');
  assert.equal(groups.sendbird_open_channel_lobby.type, 'public');
  assert.equal(
    groups.sendbird_group_channel_archived.name,
    'Old project',
    'a channel only its messages file describes is still created',
  );

  const team = byId(
    r.members.sent.filter((m) => m.guid === 'sendbird_group_channel_team'),
    'uid',
  );
  assert.deepEqual(Object.fromEntries(Object.entries(team).map(([u, m]) => [u, [m.scope, m.isBanned === true]])), {
    alice: ['admin', false],
    bob: ['participant', false],
    carol: ['participant', false],
    eve: ['participant', true],
  });
  assert.equal(
    byId(r.members.sent, 'memberId').sendbird_open_channel_lobby_member_dave.scope,
    'admin',
    'open channel operators are admins',
  );

  const m = byId(r.messages.sent, 'muid');
  assert.deepEqual(m['1001'], {
    muid: '1001',
    sender: 'system',
    receiverType: 'group',
    receiver: 'sendbird_group_channel_team',
    sentAt: 1650000010,
    category: 'message',
    type: 'text',
    data: { text: 'Welcome to Team. Be nice.', metadata: { sendbirdType: 'ADMM' } },
  });
  assert.deepEqual(m['1002'].data.metadata, {
    customType: 'greeting',
    data: '{"priority":"high"}',
    sortedMetaarray: [{ key: 'mood', value: ['happy'] }],
    mentionType: 'users',
    replyCount: 1,
    reactions: [{ key: 'thumbs_up', users: ['bob', 'carol'], updatedAt: 1650000030 }],
    originalText: 'Hi @Bob, the plan is ready',
  });
  assert.equal(m['1002'].data.text, 'Hi <@uid:bob>, the plan is ready', '@nickname of a mentioned user');
  assert.deepEqual(m['1002'].mentionedUserDetails, { bob: { uid: 'bob', name: 'Bob' } });
  assert.equal(m['1003'].data.metadata.parentMessageId, '1002');
  assert.deepEqual(
    ['1004', '1005', '1007', '3002'].map((id) => m[id].type),
    ['image', 'file', 'audio', 'video'],
  );
  assert.deepEqual(m['1004'].data, {
    attachments: [
      {
        url: 'https://files.example.com/team/whiteboard.png',
        name: 'whiteboard.png',
        mimeType: 'image/png',
        extension: 'png',
        size: '48213',
      },
    ],
    metadata: { sendbirdType: 'FILE' },
  });
  assert.deepEqual([m['2001'].receiverType, m['2001'].receiver, m['2002'].receiver], ['user', 'bob', 'alice']);
  assert.deepEqual(r.messages.sent.map((x) => x.muid).slice(0, 3), ['4001', '4002', '1001'], 'files oldest first');

  const removed = r.messages.items.find((i) => i.value?.muid === '1006');
  assert.equal(removed.value.deletedAt, 1650000075);
  const map = await readIdMap(idMapFile);
  assert.equal(map.filter((l) => l.entity === 'messages').length, 13);
});

test('files are recognised by their top-level key, not their names; a zip reads the same', async () => {
  const dir = await tempDir();
  const renamed = path.join(dir, 'export');
  await cp(EXPORT, renamed, { recursive: true });
  await rename(path.join(renamed, 'users', 'active_users.json'), path.join(renamed, 'a.json'));
  await rename(path.join(renamed, 'channels', 'group_channels.json'), path.join(renamed, 'messages', 'b.json'));
  const zip = await zipFolder(renamed, path.join(dir, 'sendbird.zip'));
  const [folder, zipped, original] = await Promise.all(
    [plan('sendbird', renamed), plan('sendbird', zip), plan('sendbird', EXPORT)].map(async (p) =>
      readPlans((await p).plans),
    ),
  );
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.deepEqual(
      new Set(folder[e].sent.map((x) => JSON.stringify(x))),
      new Set(original[e].sent.map((x) => JSON.stringify(x))),
      e,
    );
    assert.deepEqual(zipped[e].sent, folder[e].sent, e);
  }
});

test("another preset's folder is no Sendbird export", async () => {
  await assert.rejects(plan('sendbird', path.join(PRESET_FIXTURES, 'slack')), { code: 'INPUT_NOT_PRESET' });
});
