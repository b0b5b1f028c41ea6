// The mattermost preset: the JSONL of `mmctl export create` with its data/ folder; map-level checks,
// options, odd input, and end to end against the sandbox (folder and zip).
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageIdOf, toVendorId } from '../../dist/systems/preset.js';
import { tempDir } from '../helpers.mjs';
import { assertAccounted, importWithConfig } from '../preset-run.mjs';
import { byId, plan, PRESET_FIXTURES, readIdMap, readPlans, zipFolder } from '../presets-helpers.mjs';

/** A muid under the default id rule (the vendor's: the message id as it is when the service takes it). */
const muidOf = (id) => messageIdOf('vendor', id);

const EXPORT = path.join(PRESET_FIXTURES, 'mattermost', 'export');
const MEDIA = 'https://files.example.com/mattermost';
const T = 1717236000;
const channel = (team, name) => toVendorId(`${team}:${name}`);
const post = (key, ms, user) => muidOf(`${key}:${ms}:${user}`);

async function exportLines() {
  const text = await readFile(path.join(EXPORT, 'export.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

// users: 4 user lines + the bot + `ghost`, who wrote but has no user line
// groups: 5 channels + acme/secret-lab (named only by a membership and a post) + 4 direct channels
//   (three of two people, one with the bot: user to user) + the group message of alice, carol and dave
//   (no direct_channel line)
// members: 12 channel memberships + 9 direct channel members (6 of two-person ones) + 3 of that group message
// messages: 10 posts, 2 replies, 5 direct posts, 1 direct reply, 1 line of an unknown type
const EXPECTED = {
  users: { read: 6, imported: 6 },
  groups: { read: 11, imported: 8, skippedBy: { 'direct-conversation': 3 } },
  members: { read: 24, imported: 18, skippedBy: { 'direct-conversation': 6 } },
  messages: {
    read: 19,
    imported: 15,
    skippedBy: { 'join-leave': 1, 'soft-deleted': 1, empty: 1, 'unknown-line': 1 },
  },
};

test('mattermost: channels, memberships with roles, direct channels, posts with replies', async () => {
  const lines = await exportLines();
  const r = await readPlans((await plan('mattermost', EXPORT, { mediaBaseUrl: MEDIA })).plans);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.deepEqual(r[e].problems, [], e);
    assert.deepEqual(r[e].errors, [], e);
    assert.equal(r[e].read, EXPECTED[e].read, `${e} read`);
  }
  const posts = lines.filter((l) => l.type === 'post' || l.type === 'direct_post');
  const replies = posts.reduce((n, l) => n + ((l.post ?? l.direct_post).replies?.length ?? 0), 0);
  assert.equal(r.messages.read, posts.length + replies + 1);
  assert.deepEqual(r.messages.skipped, EXPECTED.messages.skippedBy);

  const users = byId(r.users.sent, 'uid');
  assert.deepEqual(users.alice, {
    uid: 'alice',
    name: 'Alice Archer',
    metadata: { username: 'alice', nickname: 'ali', position: 'CTO', roles: 'system_admin system_user', locale: 'en' },
  });
  assert.equal(users.carol.name, 'caro', 'the nickname without first and last name');
  assert.equal(users.carol.deactivatedAt, 1717900000);
  assert.deepEqual(users.deploybot.metadata, {
    username: 'deploybot',
    isBot: true,
    owner: 'alice',
    description: 'Posts every deploy',
  });
  assert.equal(users.ghost.metadata.from, 'messages');
  assert.ok(!JSON.stringify(r.users.sent).includes('@example.com'), 'no e-mail addresses');

  const groups = byId(r.groups.sent, 'guid');
  assert.deepEqual(groups[channel('acme', 'design')], {
    guid: channel('acme', 'design'),
    name: 'Design',
    type: 'private',
    owner: 'alice',
    metadata: {
      mattermostChannel: 'acme:design',
      team: 'acme',
      teamName: 'Acme Corp',
      channelName: 'design',
      header: 'Mockups and reviews',
      purpose: 'Design team',
    },
  });
  assert.equal(groups[channel('acme', 'town-square')].type, 'public');
  assert.notEqual(channel('acme', 'town-square'), channel('ops', 'town-square'), 'a name per team');
  assert.equal(groups[channel('ops', 'town-square')].metadata.teamName, 'Operations');
  assert.equal(groups[channel('acme', 'old-news')].metadata.archivedAt, 1717300000);
  assert.equal(groups[channel('acme', 'secret-lab')].metadata.from, 'references');
  assert.equal(groups[toVendorId('dm:alice,bob,carol')].name, 'alice, bob, carol');
  assert.ok(groups[toVendorId('dm:alice,carol,dave')]);

  const scope = (g, u) => r.members.sent.find((m) => m.guid === g && m.uid === u)?.scope;
  assert.equal(scope(channel('acme', 'design'), 'alice'), 'admin', 'channel_admin');
  assert.equal(scope(channel('acme', 'town-square'), 'alice'), 'moderator', 'team_admin, system_admin');
  assert.equal(scope(channel('ops', 'incidents'), 'carol'), 'admin');
  assert.equal(scope(channel('acme', 'town-square'), 'dave'), 'participant', 'a guest');

  const m = byId(r.messages.sent, 'muid');
  const welcome = post('acme:town-square', T * 1000, 'alice');
  assert.deepEqual(m[welcome].data.metadata, {
    replyCount: 2,
    reactions: [
      { emoji: '+1', count: 2, users: ['bob', 'carol'], firstAt: T + 5 },
      { emoji: '+1_skin-tone-3', count: 1, users: ['dave'], firstAt: T + 7 },
    ],
  });
  const thanks = m[post('acme:town-square', T * 1000 + 60000, 'bob')];
  assert.deepEqual(thanks.data.metadata, { threadParent: welcome, editedAt: T + 100 });
  assert.equal(m[post('acme:town-square', T * 1000 + 120500, 'carol')].sentAt, T + 120, 'sub-second time');
  const mockup = m[post('acme:design', T * 1000 + 300000, 'bob')];
  assert.equal(mockup.type, 'image');
  assert.deepEqual(mockup.data.attachments, [
    {
      url: `${MEDIA}/data/20240601/teams/acme/channels/design/users/bob/abc123/mockup.png`,
      name: 'mockup.png',
      mimeType: 'image/png',
      extension: 'png',
    },
  ]);
  assert.equal(mockup.data.metadata.pinned, true);
  assert.equal(m[post('acme:town-square', T * 1000 + 700000, 'bob')].type, 'file', 'a file without text');
  const lunch = m[post('dm:alice,bob', T * 1000 + 1000000, 'alice')];
  assert.deepEqual([lunch.receiverType, lunch.receiver], ['user', 'bob']);
  const sure = m[post('dm:alice,bob', T * 1000 + 1000500, 'bob')];
  assert.deepEqual([sure.receiver, sure.data.metadata.threadParent], ['alice', lunch.muid]);
  assert.equal(m[post('dm:bob,dave', T * 1000 + 1200000, 'dave')].receiver, 'bob', 'participants[] of newer exports');
  assert.equal(m[post('dm:alice,bob,carol', T * 1000 + 1100000, 'carol')].receiverType, 'group');

  const { idMapFile } = await plan('mattermost', EXPORT);
  const ids = await readIdMap(idMapFile);
  assert.equal(ids.filter((l) => l.entity === 'messages').length, 18);
  assert.equal(ids.filter((l) => l.entity === 'groups').length, 8);
});

test('mattermost: without mediaBaseUrl files are named; --skip-bots skips the bot, its posts and DMs', async () => {
  const r = await readPlans((await plan('mattermost', EXPORT, { includeBots: false })).plans);
  assert.deepEqual(r.users.skipped, { bot: 1 });
  assert.equal(r.messages.skipped.bot, 2, 'its post, and a message to it');
  assert.deepEqual(r.messages.errors, []);
  assert.ok(!r.users.sent.some((u) => u.uid === 'deploybot'));
  const spec = byId(r.messages.sent, 'muid')[post('acme:town-square', T * 1000 + 700000, 'bob')];
  assert.deepEqual(spec.data, {
    text: '[file: spec.pdf]',
    metadata: {
      files: [{ name: 'spec.pdf', path: 'data/20240601/teams/acme/channels/town-square/users/bob/def456/spec.pdf' }],
      placeholder: true,
    },
  });
});

test('mattermost: odd lines are counted, never a crash', async () => {
  const dir = await tempDir('cm-mm-odd-');
  await writeFile(path.join(dir, 'empty.jsonl'), '');
  await writeFile(path.join(dir, 'other.json'), '{"type": "user"}\n');
  const line = (o) => JSON.stringify(o);
  const lines = [
    line({ type: 'version', version: 1 }),
    line({ type: 'user', user: { email: 'no-username@example.com', teams: [{ name: 'acme' }] } }),
    line({ type: 'user', user: { username: 'zed', teams: [{ name: 'acme', channels: [{ name: 'x' }, {}] }, 'no'] } }),
    '{"type": "post", broken',
    '42',
    line({ type: 'post' }),
    line({ type: 'post', post: { user: 'zed', message: 'no channel', create_at: 1717236000000 } }),
    line({ type: 'post', post: { team: 'acme', channel: 'x', message: 'no user', create_at: 1717236000000 } }),
    line({ type: 'post', post: { team: 'acme', channel: 'x', user: 'zed', message: 'no time' } }),
    line({ type: 'post', post: { team: 'acme', channel: 'x', user: 'zed', message: 'ok', create_at: 1717236000001 } }),
    line({ type: 'direct_post', direct_post: { user: 'zed', message: 'nobody', create_at: 1717236000002 } }),
    line({ type: 'direct_channel', direct_channel: { members: ['zed'] } }),
    // to oneself, at 1 ms after the epoch: a time that means "never"
    line({ type: 'direct_post', direct_post: { channel_members: ['zed'], user: 'zed', message: 'me', create_at: 1 } }),
    line({ type: 'emoji', emoji: { name: 'e' } }),
    line({ type: 'something_new', something_new: {} }),
  ];
  await writeFile(path.join(dir, 'export.jsonl'), `${lines.join('\n')}\n`);
  const r = await readPlans((await plan('mattermost', dir)).plans);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read], [2, 2, 2]);
  assert.deepEqual(r.users.skipped, { 'no-sender': 1 });
  assert.deepEqual(r.groups.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.members.skipped, { 'direct-conversation': 1 });
  assert.deepEqual(r.messages.skipped, {
    'unknown-line': 2,
    'no-conversation': 2,
    'no-sender': 1,
    'no-timestamp': 1,
  });
  assert.deepEqual(
    r.messages.problems.map((p) => p.rule),
    ['input.json-syntax', 'input.not-object'],
  );
  assert.deepEqual(
    r.messages.errors.map((e) => e.rule),
    ['timestamp.invalid'],
    'a time of 1 ms after the epoch means "never"',
  );

  const none = await tempDir('cm-mm-none-');
  await writeFile(path.join(none, 'a.jsonl'), '{"type": "user", "user": {}}\n');
  await assert.rejects(plan('mattermost', none), { code: 'INPUT_NOT_PRESET' });
});

test('mattermost end to end: a config with the preset, the folder and its zip', async () => {
  assertAccounted(await importWithConfig('mattermost', EXPORT, { mediaBaseUrl: MEDIA }), EXPECTED);
  const zip = await zipFolder(EXPORT, path.join(await tempDir(), 'mattermost-export.zip'), { prefix: 'export/' });
  const zipped = await importWithConfig('mattermost', zip, { mediaBaseUrl: MEDIA });
  assertAccounted(zipped, EXPECTED);
  const mockup = zipped.records.messages[post('acme:design', T * 1000 + 300000, 'bob')];
  assert.match(mockup.data.attachments[0].url, /^https:\/\/files\.example\.com\/mattermost\/data\/20240601\//);
});

test('mattermost: two posts by one author in one millisecond are two messages, the same ids each run', async () => {
  const dir = await tempDir('cm-mm-moment-');
  await cp(EXPORT, dir, { recursive: true });
  const at = T * 1000 + 987_654;
  const said = (message) => ({ team: 'acme', channel: 'town-square', user: 'alice', message, create_at: at });
  const lines = [
    JSON.stringify({ type: 'post', post: said('first') }),
    JSON.stringify({ type: 'post', post: said('second') }),
  ];
  await writeFile(
    path.join(dir, 'export.jsonl'),
    `${(await readFile(path.join(dir, 'export.jsonl'), 'utf8')).trim()}\n${lines.join('\n')}\n`,
  );
  const more = { ...EXPECTED, messages: { ...EXPECTED.messages, read: 21, imported: 17 } };
  const run = await importWithConfig('mattermost', dir, { mediaBaseUrl: MEDIA });
  assertAccounted(run, more);
  const texts = (records) =>
    Object.entries(records.messages)
      .filter(([, m]) => m.sentAt === Math.floor(at / 1000))
      .map(([muid, m]) => [muid, m.data.text]);
  const both = texts(run.records);
  assert.deepEqual(
    both.map(([, text]) => text),
    ['first', 'second'],
  );
  assert.equal(both[0][0], post('acme:town-square', at, 'alice'), 'the first keeps the id a post alone there has');
  assert.deepEqual(texts((await importWithConfig('mattermost', dir, { mediaBaseUrl: MEDIA })).records), both);
});
