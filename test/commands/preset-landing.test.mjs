// Where the data lands: per preset, a small export is imported into the sandbox and the stored records
// are compared with what the vendor's migration guides (Sendbird, Stream, Twilio: data-migration.md)
// and the import API's schema make of the same source records: mentions as <@uid:UID> with
// mentionedUserDetails, one message a file, an owner for every group, joins after the group's
// creation, custom data and the source's ids kept. Ids that are not already lower-case [a-z0-9_-]
// go through the exported id function, so the vectors hold whichever id rule is in force.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageIdOf, toVendorId } from '../../dist/systems/preset.js';
const muidOf = (id) => messageIdOf('vendor', id);
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { assertAccounted, importWithConfig } from '../preset-run.mjs';

// Recent times: a message older than the service's retention window is not one the service keeps.
const T0 = Math.floor(Date.now() / 1000) - 2 * 86400;
const iso = (s) => new Date(s * 1000).toISOString();
const day = iso(T0).slice(0, 10);

/** Writes `files` ({relative path: JSON value or text}) into a fresh folder. */
async function exportDir(files) {
  const dir = await tempDir('cm-landing-');
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 1));
  }
  return dir;
}

/** The stored record's fields named in `expected`, for a deepEqual that says which record differs. */
const fieldsOf = (stored, expected) => Object.fromEntries(Object.keys(expected).map((k) => [k, stored?.[k]]));

/** Every key of `expected.metadata` (or of `expected` itself) holds in `actual`. */
function assertHolds(actual, expected, what) {
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(actual?.[k], v, `${what}: ${k}`);
}

/** Every member stored joined strictly after its group's creation (the vendor's "greater than"). */
function assertJoinsAfterCreation(records) {
  for (const m of Object.values(records.members)) {
    const created = records.groups[m.guid]?.createdAt;
    if (created !== undefined && m.joinedAt !== undefined)
      assert.ok(m.joinedAt > created, `${m.memberId} joined ${m.joinedAt}, group created ${created}`);
  }
}

test('sendbird: users, a channel without creator, mentions, a message with two files', async () => {
  const dir = await exportDir({
    'users/active_users.json': {
      active_users: [
        { user_id: 'alice', nickname: 'Alice', metadata: { team: 'red' } },
        { user_id: 'bob', nickname: 'Bob' },
        { user_id: 'carol', nickname: 'Carol' },
      ],
    },
    // Made through the Platform API: no created_by. Bob's join is recorded in the second of creation.
    'channels/group_channels.json': {
      group_channels: [
        {
          channel_url: 'crew',
          name: 'Crew',
          custom_type: 'support',
          data: '{"tier":"gold"}',
          created_at: T0,
          is_distinct: false,
          members: [
            { user_id: 'bob', nickname: 'Bob', joined_ts: T0 },
            { user_id: 'alice', nickname: 'Alice', role: 'operator', joined_ts: T0 + 500 },
            { user_id: 'carol', nickname: 'Carol', joined_ts: T0 + 600 },
          ],
          operators: [{ user_id: 'alice' }],
        },
      ],
    },
    'messages/crew.json': {
      messages: [
        {
          message_id: 5001,
          type: 'MESG',
          channel_url: 'crew',
          user: { user_id: 'alice', nickname: 'Alice' },
          message: 'Hi @Bob and @Carol',
          mentioned_users: [
            { user_id: 'bob', nickname: 'Bob' },
            { user_id: 'carol', nickname: 'Carol' },
          ],
          created_at: (T0 + 1000) * 1000,
        },
        {
          message_id: 5002,
          type: 'FILE',
          channel_url: 'crew',
          user: { user_id: 'bob', nickname: 'Bob' },
          message: 'two files',
          files: [
            { url: 'https://files.example.com/a.png', name: 'a.png', type: 'image/png', size: 10 },
            { url: 'https://files.example.com/b.pdf', name: 'b.pdf', type: 'application/pdf', size: 20 },
          ],
          created_at: (T0 + 1060) * 1000,
        },
      ],
    },
  });
  const run = await importWithConfig('sendbird', dir);
  assertAccounted(run, { messages: { read: 3, imported: 3 } });
  const { users, groups, members, messages } = run.records;
  // data-migration.md: metadata = { ...metadata, sendbirdUserId: user_id }
  assertHolds(users.alice.metadata, { team: 'red', sendbirdUserId: 'alice' }, 'user metadata');
  // guid = toCometChatId(channel_url), owner = the creator (else the first operator), tags = [custom_type],
  // metadata = { sendbirdChannelUrl, customType, data }
  assert.deepEqual(fieldsOf(groups.crew, { name: 1, type: 1, owner: 1, tags: 1 }), {
    name: 'Crew',
    type: 'private',
    owner: 'alice',
    tags: ['support'],
  });
  assertHolds(
    groups.crew.metadata,
    { sendbirdChannelUrl: 'crew', customType: 'support', data: '{"tier":"gold"}' },
    'group metadata',
  );
  // Operators are admins; a join in the second of creation lands one second after it.
  assert.deepEqual(
    ['alice', 'bob', 'carol'].map((u) => members[`crew_member_${u}`].scope),
    ['admin', 'participant', 'participant'],
  );
  assert.equal(members.crew_member_bob.joinedAt, T0 + 1);
  assertJoinsAfterCreation(run.records);
  // Mentions: `<@uid:UID>` in the text and mentionedUserDetails.
  assert.deepEqual(fieldsOf(messages['5001'], { sender: 1, receiver: 1, type: 1, mentionedUserDetails: 1 }), {
    sender: 'alice',
    receiver: 'crew',
    type: 'text',
    mentionedUserDetails: { bob: { uid: 'bob', name: 'Bob' }, carol: { uid: 'carol', name: 'Carol' } },
  });
  assert.equal(messages['5001'].data.text, 'Hi <@uid:bob> and <@uid:carol>');
  assert.equal(messages['5001'].data.metadata.originalText, 'Hi @Bob and @Carol');
  // One media message per file, typed by its own file; the text on the first, which keeps the message's muid.
  const second = muidOf('5002#2');
  assert.deepEqual(
    ['5002', second].map((id) => [messages[id].type, messages[id].data.attachments.map((a) => a.name)]),
    [
      ['image', ['a.png']],
      ['file', ['b.pdf']],
    ],
  );
  assert.equal(messages['5002'].data.text, 'two files');
  assert.equal(messages[second].data.text, undefined);
  assert.deepEqual(messages[second].data.metadata, { partOf: '5002', part: 2 });
  assert.equal(messages['5002'].data.metadata.parts, 2);
  assert.equal(messages[second].sentAt, messages['5002'].sentAt);

  const again = await importWithConfig('sendbird', dir);
  assert.deepEqual(Object.keys(again.records.messages).sort(), Object.keys(messages).sort(), 'muids stable');
});

/** A Stream import file: custom fields, a channel without created_by, mentions, a product card, two files. */
function streamExport() {
  const at = (s) => iso(T0 + s);
  const message = (id, fields) => ({
    type: 'message',
    item: { id, channel_type: 'messaging', channel_id: 'general', created_at: at(1000), ...fields },
  });
  return exportDir({
    'data.json': [
      { type: 'user', item: { id: 'alice', name: 'Alice', tier: 'gold' } },
      { type: 'user', item: { id: 'bob', name: 'Bob' } },
      { type: 'user', item: { id: 'carol', name: 'Carol' } },
      // No created_by: the first owner among its members owns it on the service.
      { type: 'channel', item: { id: 'general', type: 'messaging', name: 'General', created_at: at(0), region: 'eu' } },
      { type: 'member', item: { channel_type: 'messaging', channel_id: 'general', user_id: 'bob', created_at: at(0) } },
      {
        type: 'member',
        item: { channel_type: 'messaging', channel_id: 'general', user_id: 'alice', role: 'owner', created_at: at(5) },
      },
      { type: 'member', item: { channel_type: 'messaging', channel_id: 'general', user_id: 'carol' } },
      message('m1', { user: 'alice', text: 'Hey @Bob, ping @carol', mentioned_users: ['bob', 'carol'] }),
      message('m2', {
        user: 'bob',
        text: '',
        attachments: [{ type: 'product', title: 'Mug', price: 12.5, sku: 'MUG-1' }],
      }),
      message('m3', {
        user: 'carol',
        text: 'photo and spec',
        attachments: [
          { type: 'image', image_url: 'https://cdn.example.com/p.jpg', title: 'p.jpg', mime_type: 'image/jpeg' },
          {
            type: 'file',
            asset_url: 'https://cdn.example.com/spec.pdf',
            title: 'spec.pdf',
            mime_type: 'application/pdf',
          },
        ],
      }),
    ],
  });
}

test('stream: channel type as a tag, custom fields, an owner from the members, a product card, mentions', async () => {
  const dir = await streamExport();
  const run = await importWithConfig('stream', dir);
  assertAccounted(run, { messages: { read: 4, imported: 4 } });
  const { users, groups, messages } = run.records;
  const general = toVendorId('messaging:general');
  // data-migration.md: user metadata = { ...customFields, streamUserId }; group metadata = { streamCid,
  // ...customFields }, tags = [channel.type]
  assertHolds(users.alice.metadata, { tier: 'gold', streamUserId: 'alice' }, 'user metadata');
  assert.deepEqual(fieldsOf(groups[general], { name: 1, type: 1, owner: 1, tags: 1 }), {
    name: 'General',
    type: 'private',
    owner: 'alice',
    tags: ['messaging'],
  });
  assertHolds(groups[general].metadata, { streamCid: 'messaging:general', region: 'eu' }, 'group metadata');
  assertJoinsAfterCreation(run.records);
  assert.equal(messages.m1.data.text, 'Hey <@uid:bob>, ping <@uid:carol>');
  assert.deepEqual(messages.m1.mentionedUserDetails, {
    bob: { uid: 'bob', name: 'Bob' },
    carol: { uid: 'carol', name: 'Carol' },
  });
  // giphy/custom attachments -> category "custom" with data.customData = the attachment.
  assert.deepEqual(fieldsOf(messages.m2, { category: 1, type: 1, sender: 1 }), {
    category: 'custom',
    type: 'product',
    sender: 'bob',
  });
  assert.deepEqual(messages.m2.data.customData, { type: 'product', title: 'Mug', price: 12.5, sku: 'MUG-1' });
  const m3b = muidOf('m3#2');
  assert.deepEqual(
    ['m3', m3b].map((id) => [messages[id].type, messages[id].data.attachments[0].name, messages[id].data.text]),
    [
      ['image', 'p.jpg', 'photo and spec'],
      ['file', 'spec.pdf', undefined],
    ],
  );
});

test('twilio: uniqueName is the guid, the first participant owns the group, one message a media', async () => {
  const sid = (prefix, n) => `${prefix}${String(n).padStart(32, '0')}`;
  const participant = (n, identity, s) => ({
    sid: sid('MB', n),
    conversation_sid: sid('CH', 1),
    identity,
    date_created: iso(T0 + s),
  });
  const dir = await exportDir({
    'users.json': {
      users: ['alice', 'bob', 'carol'].map((identity, i) => ({
        sid: sid('US', i + 1),
        identity,
        friendly_name: identity[0].toUpperCase() + identity.slice(1),
        attributes: '{}',
      })),
    },
    'conversations.json': {
      conversations: [
        {
          sid: sid('CH', 1),
          chat_service_sid: sid('IS', 1),
          unique_name: 'support-desk',
          friendly_name: 'Support',
          attributes: '{"plan":"pro"}',
          date_created: iso(T0),
        },
      ],
    },
    'participants.json': {
      participants: [participant(1, 'carol', 0), participant(2, 'bob', 10), participant(3, 'alice', 20)],
    },
    'messages.json': {
      messages: [
        {
          sid: sid('IM', 1),
          conversation_sid: sid('CH', 1),
          chat_service_sid: sid('IS', 1),
          author: 'carol',
          body: 'the screenshots',
          index: 0,
          date_created: iso(T0 + 100),
          media: [
            { sid: sid('ME', 1), content_type: 'image/png', filename: 'one.png', size: 100 },
            { sid: sid('ME', 2), content_type: 'video/mp4', filename: 'two.mp4', size: 200 },
          ],
        },
      ],
    },
  });
  const run = await importWithConfig('twilio', dir);
  assertAccounted(run, { messages: { read: 2, imported: 2 } });
  const { users, groups, messages } = run.records;
  // data-migration.md: guid = toCometChatId(uniqueName || sid), owner = the first participant,
  // metadata = { twilioSid, ...attributes }; user metadata = { ...attributes, twilioIdentity }
  assert.deepEqual(fieldsOf(groups['support-desk'], { name: 1, type: 1, owner: 1 }), {
    name: 'Support',
    type: 'private',
    owner: 'carol',
  });
  assert.equal(groups['support-desk'].metadata.twilioSid, sid('CH', 1));
  assert.equal(users.alice.metadata.twilioIdentity, 'alice');
  assertJoinsAfterCreation(run.records);
  assert.equal(run.records.members['support-desk_member_carol'].joinedAt, T0 + 1);
  // The sandbox stores muids lower-cased, as the service does; a Twilio sid is sent as it is.
  const first = muidOf(sid('IM', 1)).toLowerCase();
  const second = muidOf(`${sid('IM', 1)}#2`).toLowerCase();
  assert.deepEqual(
    [first, second].map((id) => [messages[id].receiver, messages[id].type, messages[id].data.attachments[0].name]),
    [
      ['support-desk', 'image', 'one.png'],
      ['support-desk', 'video', 'two.mp4'],
    ],
  );
  assert.equal(messages[first].data.text, 'the screenshots');
});

test('slack: <@U…> mentions, a channel without creator, one message a file, the source ids', async () => {
  const ts = (s) => `${T0 + s}.000100`;
  const dir = await exportDir({
    'users.json': [
      { id: 'U01ADA', name: 'ada', profile: { real_name: 'Ada Lovelace' } },
      { id: 'U02GRACE', name: 'grace', profile: { real_name: 'Grace Hopper' } },
    ],
    'channels.json': [{ id: 'C01GEN', name: 'general', created: T0, members: ['U02GRACE', 'U01ADA'] }],
    [`general/${day}.json`]: [
      { type: 'message', user: 'U01ADA', text: 'hi <@U02GRACE>, see <@U01ADA|ada>', ts: ts(100) },
      {
        type: 'message',
        user: 'U02GRACE',
        text: '',
        ts: ts(200),
        files: [
          { id: 'F1', name: 'a.png', mimetype: 'image/png', url_private: 'https://files.slack.com/a.png' },
          { id: 'F2', name: 'b.mp3', mimetype: 'audio/mpeg', url_private: 'https://files.slack.com/b.mp3' },
        ],
      },
    ],
  });
  const run = await importWithConfig('slack', dir);
  assertAccounted(run, { messages: { read: 3, imported: 3 } });
  const { users, groups, members, messages } = run.records;
  const [ada, grace, general] = ['U01ADA', 'U02GRACE', 'C01GEN'].map(toVendorId);
  assert.equal(users[ada].metadata.slackUserId, 'U01ADA');
  assert.deepEqual(fieldsOf(groups[general], { owner: 1 }), { owner: grace }, 'no creator: the first member');
  assert.equal(groups[general].metadata.slackChannelId, 'C01GEN');
  assert.equal(members[`${general}_member_${grace}`].scope, 'admin');
  const hi = messages[muidOf(`C01GEN:${ts(100)}`)];
  assert.equal(hi.data.text, `hi <@uid:${grace}>, see <@uid:${ada}>`);
  assert.deepEqual(hi.mentionedUserDetails, {
    [grace]: { uid: grace, name: 'Grace Hopper' },
    [ada]: { uid: ada, name: 'Ada Lovelace' },
  });
  const files = [muidOf(`C01GEN:${ts(200)}`), muidOf(`C01GEN:${ts(200)}#2`)].map((id) => messages[id]);
  assert.deepEqual(
    files.map((m) => m.type),
    ['image', 'audio'],
  );
});

test('discord: <@id> mentions, the first writer owns the channel, one message a file', async () => {
  const dir = await exportDir({
    'general.json': {
      guild: { id: '900', name: 'Server' },
      channel: { id: '910', type: 'GuildTextChat', name: 'general' },
      messages: [
        {
          id: '1001',
          type: 'Default',
          timestamp: iso(T0 + 10),
          content: 'Hello <@102>!',
          author: { id: '101', name: 'ada' },
          mentions: [{ id: '102', name: 'grace', nickname: 'Grace' }],
        },
        {
          id: '1002',
          type: 'Default',
          timestamp: iso(T0 + 20),
          content: '',
          author: { id: '102', name: 'grace' },
          attachments: [
            { id: 'a1', url: 'https://cdn.discordapp.com/a.png', fileName: 'a.png', fileSizeBytes: 5 },
            { id: 'a2', url: 'https://cdn.discordapp.com/b.mp4', fileName: 'b.mp4', fileSizeBytes: 6 },
          ],
        },
      ],
    },
  });
  const run = await importWithConfig('discord', dir);
  assertAccounted(run, { messages: { read: 3, imported: 3 } });
  const { users, groups, messages } = run.records;
  assert.equal(groups['910'].owner, '101');
  assert.equal(groups['910'].metadata.discordChannelId, '910');
  assert.equal(users['101'].metadata.discordUserId, '101');
  assert.equal(messages['1001'].data.text, 'Hello <@uid:102>!');
  assert.deepEqual(messages['1001'].mentionedUserDetails, { 102: { uid: '102', name: 'Grace' } });
  assert.deepEqual(
    ['1002', muidOf('1002#2')].map((id) => messages[id].type),
    ['image', 'video'],
  );
});

test('mattermost: @username mentions, the channel admin owns the channel, one message a file', async () => {
  const line = (type, body) => JSON.stringify({ type, [type]: body });
  const member = (roles) => [{ name: 'acme', roles: 'team_user', channels: [{ name: 'lab', roles }] }];
  const dir = await exportDir({
    'export.jsonl': `${[
      JSON.stringify({ type: 'version', version: 1 }),
      line('team', { name: 'acme', display_name: 'Acme', type: 'O' }),
      line('channel', { team: 'acme', name: 'lab', display_name: 'Lab', type: 'P' }),
      line('user', { username: 'bob', first_name: 'Bob', teams: member('channel_user') }),
      line('user', { username: 'alice', first_name: 'Alice', teams: member('channel_user channel_admin') }),
      line('post', {
        team: 'acme',
        channel: 'lab',
        user: 'alice',
        message: 'thanks @bob. and @nobody',
        create_at: (T0 + 10) * 1000,
      }),
      line('post', {
        team: 'acme',
        channel: 'lab',
        user: 'bob',
        message: 'two files',
        create_at: (T0 + 20) * 1000,
        attachments: [{ path: 'x/one.png' }, { path: 'x/two.pdf' }],
      }),
    ].join('\n')}\n`,
  });
  const run = await importWithConfig('mattermost', dir, { mediaBaseUrl: 'https://media.example.com/mm' });
  assertAccounted(run, { messages: { read: 3, imported: 3 } });
  const { groups, messages } = run.records;
  const lab = toVendorId('acme:lab');
  assert.equal(groups[lab].owner, 'alice', 'the first channel admin, not the first member');
  assert.equal(groups[lab].metadata.mattermostChannel, 'acme:lab');
  const thanks = messages[muidOf(`acme:lab:${(T0 + 10) * 1000}:alice`)];
  assert.equal(thanks.data.text, 'thanks <@uid:bob>. and @nobody', 'only users of the export are mentions');
  assert.deepEqual(thanks.mentionedUserDetails, { bob: { uid: 'bob', name: 'Bob' } });
  const files = `acme:lab:${(T0 + 20) * 1000}:bob`;
  assert.deepEqual(
    [muidOf(files), muidOf(`${files}#2`)].map((id) => messages[id].type),
    ['image', 'file'],
  );
});

test('telegram: mention_name entities become templates, the first writer owns a group', async () => {
  const msg = (id, s, from, text) => ({
    id,
    type: 'message',
    date_unixtime: String(T0 + s),
    from: from === 'user1' ? 'Ann' : 'Bob',
    from_id: from,
    text,
  });
  const dir = await exportDir({
    'result.json': {
      name: 'Readers',
      type: 'private_group',
      id: 555,
      messages: [
        msg(1, 10, 'user2', 'hello'),
        msg(2, 20, 'user1', ['thanks ', { type: 'mention_name', text: 'Bob', user_id: 2 }, '!']),
      ],
    },
  });
  const run = await importWithConfig('telegram', dir);
  assertAccounted(run, { messages: { read: 2, imported: 2 } });
  const { groups, messages } = run.records;
  assert.equal(groups['555'].owner, 'user2');
  const thanks = messages['555-2'];
  assert.equal(thanks.data.text, 'thanks <@uid:user2>!');
  assert.deepEqual(thanks.mentionedUserDetails, { user2: { uid: 'user2', name: 'Bob' } });
  assert.equal(thanks.data.metadata.originalText, 'thanks Bob!');
});

test('verify reads the landed records back as sent: tags, custom messages, parts, mentions', async () => {
  const box = await sandbox();
  try {
    const dir = await tempDir();
    await writeConfig(dir, {
      baseUrl: box.url,
      requestsPerMinute: 100000,
      preset: 'stream',
      from: await streamExport(),
    });
    const imported = await runCli(['import'], { cwd: dir });
    assert.equal(imported.code, 0, imported.stderr);
    const verified = await runCli(['verify'], { cwd: dir });
    assert.equal(verified.code, 0, `${verified.stdout}\n${verified.stderr}`);
  } finally {
    await box.close();
  }
});
