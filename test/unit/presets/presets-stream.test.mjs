// The Stream preset: its import format (the real sample, as a JSON array and as JSON Lines) and its
// channel export (v1 documents and v2 line-separated JSON).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { toVendorId } from '../../../dist/systems/preset.js';
import { tempDir } from '../../helpers.mjs';
import { byId, plan, PRESET_FIXTURES, readPlans } from '../../presets-helpers.mjs';

const SAMPLE = path.join(PRESET_FIXTURES, 'stream');
const EXPORT = path.join(PRESET_FIXTURES, 'stream-export');
const clean = (r) =>
  ['users', 'groups', 'members', 'messages'].forEach((e) => {
    assert.deepEqual(r[e].errors, [], e);
    assert.deepEqual(r[e].problems, [], e);
  });

test('the import-format sample: users, channels, members, messages; the distinct pair is user-to-user', async () => {
  const r = await readPlans((await plan('stream', SAMPLE)).plans);
  clean(r);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [4, 3, 4, 3]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.members.skipped, { 'direct-conversation': 2 });
  assert.deepEqual(r.users.sent[0], {
    uid: 'user1',
    name: 'user1',
    metadata: { foo: 'bar', role: 'user', teams: ['teamA'], streamUserId: 'user1' },
  });
  const channelA = toVendorId('messaging:channelA');
  assert.deepEqual(r.groups.sent[0], {
    guid: channelA,
    name: 'channelA',
    type: 'private',
    owner: 'user1',
    tags: ['messaging'],
    metadata: { streamCid: 'messaging:channelA', streamType: 'messaging', streamId: 'channelA', team: 'teamA' },
  });
  const messages = byId(r.messages.sent, 'muid');
  // The sample has no message times: the first reaction's time stands in, and says so.
  assert.deepEqual(messages.message1, {
    muid: 'message1',
    sender: 'user1',
    receiverType: 'group',
    receiver: channelA,
    sentAt: 1640998861,
    category: 'message',
    type: 'text',
    data: {
      text: 'hi!',
      metadata: { reactions: [{ type: 'like', count: 1, users: ['user1'] }], sentAtFrom: 'first-reaction' },
    },
  });
  assert.deepEqual(
    [messages.message3.receiverType, messages.message3.sender, messages.message3.receiver],
    ['user', 'user3', 'user4'],
  );
});

test('the import format as JSON Lines ({"type", "data"}) reads the same', async () => {
  const items = JSON.parse(await readFile(path.join(SAMPLE, 'data.json'), 'utf8'));
  const dir = await tempDir();
  const file = path.join(dir, 'data.jsonl');
  await writeFile(file, `${items.map(({ type, item }) => JSON.stringify({ type, data: item })).join('\n')}\n`);
  const [a, b] = await Promise.all(
    [plan('stream', SAMPLE), plan('stream', file)].map(async (p) => readPlans((await p).plans)),
  );
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(b[e].sent, a[e].sent, e);
  assert.equal(b.users.items[1].line, 2, 'JSON Lines records point at their line');
});

test('JSON Lines whose first line is longer than a read block (a user with a long field) are lines', async () => {
  const items = JSON.parse(await readFile(path.join(SAMPLE, 'data.json'), 'utf8'));
  items[0].item.bio = 'x'.repeat(200_000);
  const dir = await tempDir();
  const file = path.join(dir, 'data.jsonl');
  await writeFile(file, `${items.map(({ type, item }) => JSON.stringify({ type, data: item })).join('\n')}\n`);
  const r = await readPlans((await plan('stream', file)).plans);
  clean(r);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [4, 3, 4, 3]);
  assert.deepEqual(r.users.sent[0].metadata.trimmed, ['bio'], 'read whole, then trimmed to the service limit');
  const { detectPreset, openExportTree } = await import('../../../dist/systems/detect/index.js');
  const found = await detectPreset(await openExportTree(dir, path.dirname(dir)), dir);
  assert.equal(found?.preset, 'stream', 'init recognises it');
  assert.equal(found?.counts.messages, 3);
});

test(
  'channel exports (v1 JSON and v2 lines): roles, ' + 'attachments, threads, quotes, deleted and system messages',
  async () => {
    const r = await readPlans((await plan('stream', EXPORT)).plans);
    clean(r);
    assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [6, 3, 7, 14]);
    assert.deepEqual(r.messages.skipped, { 'soft-deleted': 1, ephemeral: 1 });
    assert.equal(
      r.inputs.find((i) => i.startsWith('stream:') && i.endsWith('#users') && i !== 'stream:users-from-messages'),
      undefined,
      'exports have no users entities: no users input reads them',
    );

    const general = toVendorId('messaging:general');
    const members = byId(
      r.members.sent.filter((m) => m.guid === general),
      'uid',
    );
    assert.deepEqual(
      [members.rodolphe.scope, members.nadia.scope, members['test-mig-user'].scope],
      ['admin', 'moderator', 'participant'],
    );
    assert.equal(members[toVendorId('Omar.K')].isBanned, true);
    assert.equal(members.nadia.joinedAt, 1737363601, "a join before the channel's creation: a second after it");

    const users = byId(r.users.sent, 'uid');
    assert.deepEqual(users.rodolphe, {
      uid: 'rodolphe',
      name: 'Rodolphe Irany',
      avatar: 'https://images.example.com/rodolphe.png',
      metadata: { role: 'user', sourceId: 'rodolphe', from: 'messages' },
    });
    assert.ok(users.system, 'the system message needs the system user');

    const m = byId(r.messages.sent, 'muid');
    assert.deepEqual(m['m-001'].data.metadata, {
      reactions: [
        { type: 'love', count: 1, users: ['nadia'] },
        { type: 'like', count: 1, users: [toVendorId('Omar.K')] },
      ],
      originalText: 'Welcome @nadia!',
    });
    assert.equal(m['m-001'].data.text, 'Welcome <@uid:nadia>!');
    assert.deepEqual(m['m-001'].mentionedUserDetails, { nadia: { uid: 'nadia', name: 'Nadia' } });
    assert.deepEqual(m['m-002'].data.metadata, { parentId: 'm-001', showInChannel: true });
    assert.deepEqual(
      [m['m-003'].type, m['m-003'].data.attachments[0].url],
      ['image', 'https://us-east.stream-io-cdn.com/1234/images/team-photo.jpg'],
    );
    assert.deepEqual(m['m-004'].data.attachments, [
      {
        url: 'https://us-east.stream-io-cdn.com/1234/attachments/spec.pdf',
        name: 'spec.pdf',
        mimeType: 'application/pdf',
        extension: 'pdf',
        size: '230411',
      },
    ]);
    assert.equal(m['m-005'].type, 'text', 'a link preview is no attachment');
    assert.equal(m['m-005'].data.metadata.quotedMessageId, 'm-004');
    assert.deepEqual([m['m-007'].sender, m['m-007'].data.metadata.streamType], ['system', 'system']);
    assert.equal(m['m-008'].type, 'audio');
    const dm = m['64828eb5-ca8c-4459-ad13-276f4b374360'];
    assert.deepEqual(
      [dm.receiverType, dm.sender, dm.receiver],
      ['user', 'rodolphe', 'test-mig-user'],
      'a two-member !members- channel is user-to-user',
    );
    const live = m['live-2'];
    assert.deepEqual(
      [live.receiver, live.type, live.data.attachments[0].mimeType],
      [toVendorId('livestream:launch'), 'image', 'image/gif'],
    );
    assert.equal(byId(r.groups.sent, 'guid')[toVendorId('livestream:launch')].type, 'public');
  },
);

test('a deleted message can be imported with --import-soft-deleted: its time is in deletedAt', async () => {
  const r = await readPlans((await plan('stream', path.join(EXPORT, 'general.json'))).plans);
  const deleted = r.messages.items.find((i) => i.value?.muid === 'm-006');
  assert.equal(deleted.value.deletedAt, 1737451560);
});
