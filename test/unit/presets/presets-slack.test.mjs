// The Slack preset on the real sample export (fixtures/presets/slack) and on a small made-up export
// with the parts the sample lacks (DMs, private channels, multi-person DMs, threads, deleted files).
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageIdOf, toVendorId } from '../../../dist/systems/preset.js';
import { tempDir } from '../../helpers.mjs';
import { byId, plan, PRESET_FIXTURES, readIdMap, readPlans, zipFolder } from '../../presets-helpers.mjs';

/** A muid under the default id rule (the vendor's: the message id as it is when the service takes it). */
const muidOf = (id) => messageIdOf('vendor', id);

const SAMPLE = path.join(PRESET_FIXTURES, 'slack');

test('the sample export: every record read, valid, and accounted for', async () => {
  const { plans, idMapFile } = await plan('slack', SAMPLE);
  const r = await readPlans(plans);
  assert.equal(
    r.inputs.length,
    2 + 1 + 1 + 17,
    'users.json, users-from-messages, channels.json, its members, 17 day files',
  );
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [7, 2, 8, 158]);
  assert.deepEqual(r.messages.skipped, { 'join-leave': 8 });
  assert.equal(r.messages.sent.length, 150);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.deepEqual(r[e].errors, [], e);
    assert.deepEqual(r[e].problems, [], e);
  }
  // Day files go oldest day first, then by channel.
  assert.deepEqual(r.inputs.slice(4, 7), [
    'slack:enrique/2016-01-14.json',
    'slack:enrique/2016-01-15.json',
    'slack:enrique/2016-01-16.json',
  ]);

  const users = byId(r.users.sent, 'uid');
  const hamza = toVendorId('U0BMQB6JE');
  assert.deepEqual(users[hamza], {
    uid: hamza,
    name: 'Hamza Faran',
    avatar:
      'https://secure.gravatar.com/avatar/0cca3d9ebcdac7cf4ed54a82fb0d308b.jpg?s=192' +
      '&d=https%3A%2F%2Fa.slack-edge.com%2F7fa9%2Fimg%2Favatars%2Fava_0007-192.png',
    metadata: {
      slackUserId: 'U0BMQB6JE',
      slackName: 'hamza',
      displayName: 'hamza',
      tz: 'America/Los_Angeles',
      isAdmin: true,
      isOwner: true,
    },
  });
  assert.equal(users[toVendorId('B0JL6RASU')].metadata.isBot, true, 'a bot only messages mention is created from them');

  const groups = byId(r.groups.sent, 'guid');
  assert.deepEqual(groups[toVendorId('C0JGLMMNX')], {
    guid: toVendorId('C0JGLMMNX'),
    name: 'enrique',
    type: 'public',
    owner: hamza,
    createdAt: 1452837318,
    metadata: { slackChannelId: 'C0JGLMMNX', slackName: 'enrique', slackKind: 'channels' },
  });
  const admins = r.members.sent.filter((m) => m.scope === 'admin').map((m) => m.uid);
  assert.deepEqual(admins, [hamza, hamza], 'the creator is admin of both channels');

  const messages = byId(r.messages.sent, 'muid');
  const upload = messages[muidOf('C0JL6CGQ2:1459052866.000012')];
  assert.deepEqual(upload, {
    muid: muidOf('C0JL6CGQ2:1459052866.000012'),
    sender: toVendorId('U0BMS113R'),
    receiverType: 'group',
    receiver: toVendorId('C0JL6CGQ2'),
    sentAt: 1459052866,
    category: 'message',
    type: 'file',
    data: {
      text:
        `<@uid:${toVendorId('U0BMS113R')}> uploaded a file: ` +
        '<https://mesos-magellan.slack.com/files/U0BMS113R/F0VNAKDE2/100_cities.js|100 cities>',
      attachments: [
        {
          url: 'https://files.slack.com/files-pri/T0BMHLSRH-F0VNAKDE2/100_cities.js',
          name: '100_cities.js',
          mimeType: 'text/plain',
          extension: 'js',
          size: '4163',
        },
      ],
      metadata: {
        subtype: 'file_share',
        originalText:
          '<@U0BMS113R> uploaded a file: ' +
          '<https://mesos-magellan.slack.com/files/U0BMS113R/F0VNAKDE2/100_cities.js|100 cities>',
      },
    },
    mentionedUserDetails: { [toVendorId('U0BMS113R')]: { uid: toVendorId('U0BMS113R'), name: 'Hermione Granger' } },
  });
  const reacted = messages[muidOf('C0JGLMMNX:1459154014.000018')];
  assert.equal(reacted.sender, toVendorId('B0JL6RASU'));
  assert.match(
    reacted.data.text,
    /^\[enrique:master\] 1 new commit by hfaran:/,
    'an attachment-only bot message takes its text from the attachment',
  );
  assert.deepEqual(reacted.data.metadata.reactions, [{ name: 'botman', count: 1, users: [toVendorId('U0BMYT2FL')] }]);
  assert.deepEqual(messages[muidOf('C0JL6CGQ2:1458972985.000010')].data.metadata.edited, {
    by: hamza,
    at: 1458981134,
  });
  const sentAts = r.messages.sent.map((m) => m.sentAt);
  assert.deepEqual(
    sentAts.slice(0, 5),
    [...sentAts.slice(0, 5)].sort((a, b) => a - b),
  );

  const map = await readIdMap(idMapFile);
  const count = (e) => map.filter((l) => l.entity === e).length;
  assert.deepEqual([count('users'), count('groups'), count('messages')], [7, 2, 150]);
  assert.deepEqual(map[0], { entity: 'users', sourceId: 'U0BMYT2FL', id: toVendorId('U0BMYT2FL') });
});

test('options: bots skipped, join/leave kept, both counted', async () => {
  const { plans } = await plan('slack', SAMPLE, { includeBots: false, includeJoinLeave: true });
  const r = await readPlans(plans);
  assert.deepEqual(r.messages.skipped, { bot: 94 });
  assert.equal(r.users.read, 4, 'bots that only messages mention are not created');
  assert.deepEqual(r.messages.errors, []);
  const join = r.messages.sent.find((m) => m.data.metadata?.subtype === 'channel_join');
  assert.equal(join.data.text, `<@uid:${toVendorId('U0BMQB6JE')}> has joined the channel`);
});

test('the same export zipped (inside a top folder) gives the same records', async () => {
  const dir = await tempDir();
  const zip = await zipFolder(SAMPLE, path.join(dir, 'slack.zip'), { prefix: 'My Workspace Slack export/' });
  const [fromFolder, fromZip] = await Promise.all([
    plan('slack', SAMPLE).then((p) => readPlans(p.plans)),
    plan('slack', zip).then((p) => readPlans(p.plans)),
  ]);
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(fromZip[e].sent, fromFolder[e].sent, e);
  assert.match(fromZip.messages.items[0].file, /slack\.zip!My Workspace Slack export\/enrique\/2016-01-14\.json$/);
});

test('DMs, private channels, multi-person DMs, threads and files without URL', async () => {
  const dir = await tempDir();
  const write = async (rel, value) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), JSON.stringify(value, null, 2));
  };
  await write('users.json', [
    { id: 'U1', name: 'ann', profile: { real_name: 'Ann' } },
    { id: 'U2', name: 'ben', deleted: true, updated: 1600000000, profile: {} },
  ]);
  await write('groups.json', [{ id: 'G1', name: 'secret', created: 1500000000, creator: 'U1', members: ['U1', 'U3'] }]);
  await write('mpims.json', [
    { id: 'G2', name: 'mpdm-ann--ben--cy-1', created: 1500000000, creator: 'U1', members: ['U1', 'U2', 'U3'] },
  ]);
  await write('dms.json', [{ id: 'D1', created: 1500000000, members: ['U1', 'U2'] }]);
  await write('secret/2020-01-01.json', [
    {
      type: 'message',
      user: 'U1',
      text: 'thread start',
      ts: '1577836800.000100',
      thread_ts: '1577836800.000100',
      reply_count: 1,
    },
    {
      type: 'message',
      user: 'U3',
      text: 'reply',
      ts: '1577836801.000200',
      thread_ts: '1577836800.000100',
      user_profile: { real_name: 'Cy', image_72: 'https://a.example/cy.png' },
    },
    {
      type: 'message',
      user: 'U1',
      text: '',
      ts: '1577836802.000300',
      files: [{ id: 'F1', name: 'gone.pdf', mode: 'hidden_by_limit' }],
    },
    {
      type: 'message',
      subtype: 'tombstone',
      user: 'USLACKBOT',
      text: 'This message was deleted.',
      ts: '1577836803.000400',
      hidden: true,
    },
    { type: 'message', user: 'U1', text: '', ts: '1577836804.000500' },
    {
      type: 'message',
      user: 'U1',
      text: 'popular',
      ts: '1577836805.000600',
      reactions: Array.from({ length: 400 }, (_, i) => ({ name: `emoji_${i}`, users: ['U1', 'U3'], count: 2 })),
    },
  ]);
  await write('D1/2020-01-02.json', [
    { type: 'message', user: 'U1', text: 'hi ben', ts: '1577923200.000100' },
    {
      type: 'message',
      user: 'U2',
      text: 'pic',
      ts: '1577923201.000200',
      files: [
        {
          id: 'F2',
          name: 'cat.png',
          mimetype: 'image/png',
          filetype: 'png',
          size: 10,
          url_private: 'https://files.slack.com/files-pri/T1-F2/cat.png?t=xoxe-secret',
        },
      ],
    },
  ]);
  await write('mpdm-ann--ben--cy-1/2020-01-03.json', [
    { type: 'message', user: 'U2', text: 'all three', ts: '1578009600.000100' },
  ]);
  await write('random-old/2019-12-31.json', [
    { type: 'message', user: 'U1', text: 'folder no index lists', ts: '1577750400.000100' },
  ]);

  const r = await readPlans((await plan('slack', dir)).plans);
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(r[e].errors, [], e);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.members.skipped, { 'direct-conversation': 2 });
  assert.deepEqual(r.messages.skipped, { 'soft-deleted': 1, empty: 1 });
  const groups = byId(r.groups.sent, 'guid');
  assert.equal(groups[toVendorId('G1')].type, 'private');
  assert.equal(groups[toVendorId('G2')].type, 'private');
  assert.deepEqual(groups['random-old'], {
    guid: 'random-old',
    name: 'random-old',
    type: 'private',
    metadata: { slackFolder: 'random-old' },
  });
  const users = byId(r.users.sent, 'uid');
  assert.equal(users[toVendorId('U2')].deactivatedAt, 1600000000);
  assert.deepEqual(users[toVendorId('U3')], {
    uid: toVendorId('U3'),
    name: 'Cy',
    avatar: 'https://a.example/cy.png',
    metadata: { sourceId: 'U3', from: 'messages' },
  });
  assert.ok(users.system === undefined, 'no system user without system messages');

  const messages = r.messages.sent;
  const reply = messages.find((m) => m.data.text === 'reply');
  assert.equal(reply.data.metadata.threadParent, muidOf('G1:1577836800.000100'));
  assert.equal(messages.find((m) => m.data.text === 'thread start').data.metadata.replyCount, 1);
  const popular = messages.find((m) => m.data.text === 'popular');
  assert.deepEqual(
    popular.data.metadata,
    { trimmed: ['reactions'] },
    'metadata too large for 10 KB of data is trimmed, and says what went',
  );
  const gone = messages.find((m) => m.data.metadata?.filesUnavailable);
  assert.equal(gone.data.text, '[file: gone.pdf]');
  const dm = messages.filter((m) => m.receiverType === 'user');
  assert.deepEqual(
    dm.map((m) => [m.sender, m.receiver]),
    [
      [toVendorId('U1'), toVendorId('U2')],
      [toVendorId('U2'), toVendorId('U1')],
    ],
  );
  assert.equal(
    dm[1].data.attachments[0].url,
    'https://files.slack.com/files-pri/T1-F2/cat.png',
    'the access token is stripped',
  );
  assert.equal(dm[1].type, 'image');
  assert.equal(messages[0].data.text, 'folder no index lists', 'oldest day first');
});

test('a folder that is no Slack export is refused', async () => {
  await assert.rejects(plan('slack', path.join(PRESET_FIXTURES, 'discord')), { code: 'INPUT_NOT_PRESET' });
  await assert.rejects(plan('nope', SAMPLE), { code: 'CONFIG_INVALID' });
});
