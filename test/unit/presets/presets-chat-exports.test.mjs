// The Discord (DiscordChatExporter JSON) and Telegram (Telegram Desktop result.json) presets.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { byId, plan, PRESET_FIXTURES, readPlans } from '../../presets-helpers.mjs';

const DISCORD = path.join(PRESET_FIXTURES, 'discord');
const TELEGRAM = path.join(PRESET_FIXTURES, 'telegram');
const clean = (r) =>
  ['users', 'groups', 'members', 'messages'].forEach((e) => {
    assert.deepEqual(r[e].errors, [], e);
    assert.deepEqual(r[e].problems, [], e);
  });
const ADA = '100000000000000001';
const GRACE = '100000000000000002';
const LINUS = '100000000000000003';

test('discord: users from authors, a group per channel, members from who wrote, a DM user-to-user', async () => {
  const r = await readPlans((await plan('discord', DISCORD)).plans);
  clean(r);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [4, 3, 7, 14]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.messages.skipped, { 'join-leave': 2 });
  assert.deepEqual(byId(r.users.sent, 'uid')[ADA], {
    uid: ADA,
    name: 'Ada L.',
    avatar: `https://cdn.discordapp.com/avatars/${ADA}/a1b2c3d4e5f6.png?size=512`,
    metadata: { discordUserId: ADA, discordName: 'ada', sourceId: ADA, from: 'messages' },
  });
  const general = byId(r.groups.sent, 'guid')['910000000000000001'];
  assert.deepEqual(general, {
    guid: '910000000000000001',
    name: 'general',
    type: 'public',
    icon: 'https://cdn.discordapp.com/icons/900000000000000000/icon.png?size=512',
    // DCE records no creator: the first to write (linus joined first) owns it.
    owner: '100000000000000003',
    metadata: {
      discordChannelId: '910000000000000001',
      discordType: 'GuildTextChat',
      guildId: '900000000000000000',
      guildName: 'Test Server',
      category: 'Text Channels',
      categoryId: '905000000000000000',
      topic: 'Anything goes',
    },
  });
  assert.equal(byId(r.groups.sent, 'guid')['970000000000000001'].type, 'private', 'a group DM is a private group');
  assert.deepEqual(
    r.members.sent.filter((m) => m.guid === '910000000000000001').map((m) => m.uid),
    [LINUS, ADA, GRACE, '100000000000000009'],
    'who joined or wrote, first seen first',
  );

  const m = byId(r.messages.sent, 'muid');
  assert.deepEqual(m['920000000000000003'], {
    muid: '920000000000000003',
    sender: GRACE,
    receiverType: 'group',
    receiver: '910000000000000001',
    sentAt: 1711962150,
    category: 'message',
    type: 'file',
    data: {
      text: 'Hi Ada! Here are the slides',
      attachments: [
        {
          url: 'https://cdn.discordapp.com/attachments/910000000000000001/930000000000000001/slides.pdf',
          name: 'slides.pdf',
          mimeType: 'application/pdf',
          extension: 'pdf',
          size: '2048576',
        },
      ],
      metadata: { replyTo: '920000000000000002', editedAt: 1711962180 },
    },
  });
  assert.deepEqual(m['920000000000000002'].data.metadata, {
    reactions: [{ emoji: '👋', count: 2, users: [GRACE, LINUS] }],
    originalText: `Hello <@${GRACE}>!`,
  });
  assert.equal(m['920000000000000002'].data.text, `Hello <@uid:${GRACE}>!`, 'the mention in the service form');
  assert.deepEqual(m['920000000000000002'].mentionedUserDetails, { [GRACE]: { uid: GRACE, name: 'Grace' } });
  assert.equal(
    m['920000000000000004'].data.text,
    '[repo] 1 new commit\nabc123 Fix the build - ada',
    "an embed-only bot message shows the embed's text",
  );
  assert.deepEqual(
    [m['920000000000000005'].type, m['920000000000000005'].data.attachments[0].url],
    ['image', 'https://media.discordapp.net/stickers/940000000000000001.png'],
  );
  assert.equal(m['920000000000000006'].data.text, '[sticker: Party]');
  assert.deepEqual(
    [m['960000000000000001'].receiverType, m['960000000000000001'].receiver, m['960000000000000002'].receiver],
    ['user', GRACE, ADA],
  );
  assert.equal(
    m['980000000000000003'].data.text,
    '[file: diagram.png]',
    'a downloaded asset without mediaBaseUrl is named, not attached',
  );
  assert.deepEqual(
    r.messages.sent.map((x) => x.sentAt),
    [...r.messages.sent.map((x) => x.sentAt)].sort((a, b) => a - b),
    'oldest first',
  );
});

test('discord: mediaBaseUrl turns downloaded assets into attachments; bots and join events by option', async () => {
  const r = await readPlans(
    (
      await plan('discord', DISCORD, {
        mediaBaseUrl: 'https://media.example.com/dce/',
        includeBots: false,
        includeJoinLeave: true,
      })
    ).plans,
  );
  clean(r);
  assert.deepEqual(r.messages.skipped, { bot: 1 });
  assert.equal(r.users.read, 3);
  const m = byId(r.messages.sent, 'muid');
  assert.equal(
    m['980000000000000003'].data.attachments[0].url,
    'https://media.example.com/dce/Direct%20Messages%20-%20Group%20-%20ada%2C%20grace%2C%20linus%20' +
      '%5B970000000000000001%5D.json_Files/diagram-3F2A1.png',
  );
  assert.equal(m['980000000000000001'].data.text, '[RecipientAdd]');
});

test('telegram: a full export (personal chat, supergroup, channel, saved messages, a left group)', async () => {
  const r = await readPlans((await plan('telegram', path.join(TELEGRAM, 'full'))).plans);
  clean(r);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [7, 5, 6, 20]);
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 2 });
  assert.deepEqual(r.messages.skipped, { 'join-leave': 1 });
  const users = byId(r.users.sent, 'uid');
  assert.deepEqual(users.user111, {
    uid: 'user111',
    name: 'Alice Example',
    metadata: { sourceId: 'user111', from: 'messages' },
  });
  assert.equal(users.user555.name, 'Deleted Account');
  assert.deepEqual(byId(r.groups.sent, 'guid')['333'], {
    guid: '333',
    name: 'Book club 📚',
    type: 'private',
    owner: 'user111',
    metadata: { telegramType: 'private_supergroup', telegramId: '333' },
  });
  assert.equal(byId(r.groups.sent, 'guid')['666'].type, 'public');
  assert.deepEqual(
    r.members.sent.filter((x) => x.guid === '333').map((x) => [x.uid, x.scope]),
    [
      ['user111', 'admin'],
      ['user444', 'participant'],
      ['user222', 'participant'],
      ['user555', 'participant'],
    ],
  );

  const m = byId(r.messages.sent, 'muid');
  assert.deepEqual(m['222-5'], {
    muid: '222-5',
    sender: 'user111',
    receiverType: 'user',
    receiver: 'user222',
    sentAt: 1700000240,
    category: 'message',
    type: 'text',
    data: {
      text: 'nice',
      metadata: { replyTo: '222-2', editedAt: 1700000280, reactions: [{ emoji: '❤', count: 1, users: ['user222'] }] },
    },
  });
  assert.equal(m['222-3'].data.text, '[sticker 👍]');
  assert.deepEqual(
    [m['222-6'].sender, m['222-6'].receiver, m['222-6'].data.text],
    ['user111', 'user222', 'Alice Example phone call (42 s)'],
    'a service message of a personal chat stays in it',
  );
  assert.deepEqual(
    [m['333-1'].sender, m['333-1'].data.metadata.action],
    ['system', 'create_group'],
    'group service messages come from the system user',
  );
  assert.deepEqual(
    [m['333-3'].data.text, m['333-3'].data.metadata.originalText, m['333-3'].mentionedUserDetails],
    [
      'Next book: Dune — <@uid:user222>, you pick the date: https://example.org/dune',
      'Next book: Dune — Bob, you pick the date: https://example.org/dune',
      { user222: { uid: 'user222', name: 'Bob' } },
    ],
    'a mention_name entity becomes the mention template',
  );
  assert.equal(m['333-4'].data.text, '[poll: Which Saturday?]');
  assert.deepEqual([m['111-1'].sender, m['111-1'].receiver], ['user111', 'user111'], 'saved messages go to oneself');
  assert.equal(m['666-2'].sender, 'channel666', 'a channel posts as a user of its own');
});

test(
  'telegram: media exported with the chat become attachments ' + 'under mediaBaseUrl; a one-chat export works too',
  async () => {
    const full = await readPlans(
      (
        await plan('telegram', path.join(TELEGRAM, 'full', 'result.json'), {
          mediaBaseUrl: 'https://cdn.example.com/tg',
        })
      ).plans,
    );
    const m = byId(full.messages.sent, 'muid');
    assert.deepEqual(m['222-2'].data.attachments, [
      {
        url: 'https://cdn.example.com/tg/photos/photo_1%4014-11-2023_22-14-20.jpg',
        name: 'photo_1@14-11-2023_22-14-20.jpg',
        mimeType: 'image/jpeg',
        extension: 'jpg',
        size: '83422',
      },
    ]);
    assert.deepEqual([m['222-4'].type, m['333-5'].type], ['audio', 'file']);

    const single = await readPlans((await plan('telegram', path.join(TELEGRAM, 'single'))).plans);
    clean(single);
    assert.deepEqual([single.users.read, single.groups.read, single.messages.read], [2, 1, 3]);
    const s = byId(single.messages.sent, 'muid');
    assert.deepEqual(
      [s['444-2'].sender, s['444-2'].receiver, s['444-2'].data.text],
      ['user111', 'user444', 'Almost! Chapter 40'],
    );
    assert.equal(s['444-3'].data.text, '[GIF]');
  },
);
