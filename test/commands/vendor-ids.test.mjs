// The vendor's id rule (`idRule: vendor`, the default): presets give users and groups the ids an app
// built on the vendor's migration guides logs in with (its `toCometChatId`), and messages the ids its
// transform sends. Every expected id below is written out literally, as the vendor's published
// function gives it for the source id beside it, so a change of our rule cannot pass unnoticed.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageIdOf, serviceIdOf, toVendorId } from '../../dist/systems/preset.js';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { PRESET_FIXTURES } from '../presets-helpers.mjs';

/** The vendor's own test vectors (its migration guides) and a few more of ours, worked with its function. */
const VECTORS = [
  ['Alice', 'alice_11ptgg'],
  ['alice.smith@example.com', 'alice_smith_example_com_1t3ryhe'],
  ['messaging:general', 'messaging_general_1o0t3ea'],
  ['alice', 'alice'],
  ['alice_11ptgg', 'alice_11ptgg'],
  ['Bob', 'bob_1fo5'],
  ['+15551230001', '_15551230001_2qrzs4'],
  ['日本語', '____fflhz'],
  // Outside the BMP a character is two UTF-16 units, each replaced: two underscores.
  ['x😀y', 'x__y_2fv1t'],
  // Over 100 characters: 90 kept, then the hash of the whole.
  ['a'.repeat(101), `${'a'.repeat(90)}_1b5z19d`],
];

test("the vendor's function, to the character; the collision-free rule is the other choice", () => {
  for (const [source, id] of VECTORS) {
    assert.equal(toVendorId(source), id, source);
    assert.equal(serviceIdOf('vendor', source), id, source);
  }
  assert.equal(serviceIdOf('collision-free', 'Alice'), 'alice--hpcrayuxhrcy2wtp');
  // Message ids go as they are when the service takes them (the vendor sends them raw), else by the function.
  assert.equal(messageIdOf('vendor', 'IM00000000000000000000000000000001'), 'IM00000000000000000000000000000001');
  assert.equal(messageIdOf('vendor', '1001'), '1001');
  assert.equal(messageIdOf('vendor', 'C0JL6CGQ2:1459052866.000012'), 'c0jl6cgq2_1459052866_000012_1fjpf1r');
  assert.equal(messageIdOf('collision-free', '1001'), '1001');
});

const HOUR = 3600;
const now = Math.floor(Date.now() / 1000);

/** A Sendbird Data Export (users, a group channel, its messages) whose ids the service would not take as they are. */
async function sendbirdExport(users) {
  const dir = await tempDir('cm-sendbird-ids-');
  await mkdir(path.join(dir, 'users'));
  await mkdir(path.join(dir, 'channels'));
  await mkdir(path.join(dir, 'messages'));
  const user = (id) => ({ user_id: id, nickname: `Nick ${id}`, created_at: now - 48 * HOUR });
  await writeFile(path.join(dir, 'users', 'active_users.json'), JSON.stringify({ active_users: users.map(user) }));
  const channel = {
    name: 'Team',
    channel_url: 'Team.Room',
    is_distinct: false,
    is_public: false,
    created_at: now - 24 * HOUR,
    created_by: { user_id: users[0] },
    members: users.map((id) => ({ user_id: id, state: 'joined', role: '' })),
  };
  await writeFile(path.join(dir, 'channels', 'group_channels.json'), JSON.stringify({ group_channels: [channel] }));
  const message = (id, sender) => ({
    message_id: id,
    type: 'MESG',
    channel_url: 'Team.Room',
    user: { user_id: sender },
    message: `hello from ${sender}`,
    created_at: (now - HOUR) * 1000,
  });
  const messages = { messages: [message(1001, users[0]), message(1002, users[1])], channel };
  await writeFile(path.join(dir, 'messages', 'Team.Room.json'), JSON.stringify(messages, null, 2));
  return dir;
}

/** A Stream import file: the users and its `messaging:general` channel. */
async function streamExport() {
  const dir = await tempDir('cm-stream-ids-');
  const at = new Date((now - HOUR) * 1000).toISOString();
  const items = [
    { type: 'user', item: { id: 'Alice', name: 'Alice' } },
    { type: 'user', item: { id: 'alice.smith@example.com', name: 'Alice Smith' } },
    { type: 'channel', item: { id: 'general', type: 'messaging', created_by: 'Alice' } },
    { type: 'member', item: { channel_id: 'general', channel_type: 'messaging', user_id: 'Alice' } },
    { type: 'member', item: { channel_id: 'general', channel_type: 'messaging', user_id: 'alice.smith@example.com' } },
    {
      type: 'message',
      item: { id: 'b7e0c6a2-0d1c-4bd4-9d2e-3f4a5b6c7d8e', channel_id: 'general', channel_type: 'messaging' },
    },
  ];
  Object.assign(items[5].item, { user: 'Alice', text: 'hi', created_at: at });
  await writeFile(path.join(dir, 'data.json'), JSON.stringify(items));
  return path.join(dir, 'data.json');
}

/** `import --json` of a preset's export into a fresh sandbox; what the sandbox stored. */
async function importPreset(preset, from, extra = {}) {
  const box = await sandbox();
  try {
    const dir = await tempDir();
    await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000, retentionDays: 0, preset, from, ...extra });
    const r = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(r.code, 0, `exit code\n${r.stderr}\n${r.stdout}`);
    return { records: box.records(), dir };
  } finally {
    await box.close();
  }
}

const ids = (records) => Object.keys(records).sort();

test('sendbird: uids and the guid by the vendor rule, muids the message ids as they are', async () => {
  const from = await sendbirdExport(['Alice', 'alice.smith@example.com']);
  const { records } = await importPreset('sendbird', from);
  assert.deepEqual(ids(records.users), ['alice_11ptgg', 'alice_smith_example_com_1t3ryhe']);
  assert.deepEqual(ids(records.groups), ['team_room_tgy7d8']);
  assert.equal(records.groups.team_room_tgy7d8.owner, 'alice_11ptgg');
  assert.deepEqual(ids(records.members), [
    'team_room_tgy7d8_member_alice_11ptgg',
    'team_room_tgy7d8_member_alice_smith_example_com_1t3ryhe',
  ]);
  assert.deepEqual(ids(records.messages), ['1001', '1002']);
  assert.equal(records.messages['1002'].sender, 'alice_smith_example_com_1t3ryhe');
  assert.equal(records.messages['1002'].receiver, 'team_room_tgy7d8');
});

test('stream: the full cid makes the guid (messaging:general -> messaging_general_1o0t3ea)', async () => {
  const { records } = await importPreset('stream', await streamExport());
  assert.deepEqual(ids(records.users), ['alice_11ptgg', 'alice_smith_example_com_1t3ryhe']);
  assert.deepEqual(ids(records.groups), ['messaging_general_1o0t3ea']);
  assert.equal(records.groups.messaging_general_1o0t3ea.owner, 'alice_11ptgg');
  assert.deepEqual(ids(records.messages), ['b7e0c6a2-0d1c-4bd4-9d2e-3f4a5b6c7d8e']);
  const message = records.messages['b7e0c6a2-0d1c-4bd4-9d2e-3f4a5b6c7d8e'];
  assert.deepEqual([message.sender, message.receiver], ['alice_11ptgg', 'messaging_general_1o0t3ea']);
});

test('stream fixture: user ids already valid stay, channel cids become guids', async () => {
  const { records } = await importPreset('stream', path.join(PRESET_FIXTURES, 'stream', 'data.json'));
  assert.deepEqual(ids(records.users), ['user1', 'user2', 'user3', 'user4']);
  assert.deepEqual(ids(records.groups), ['messaging_channela_7n83mc', 'messaging_channelb_7n83md']);
  assert.deepEqual(ids(records.messages), ['message1', 'message2', 'message3']);
});

test('twilio: identities and conversation sids by the vendor rule, message sids as they are', async () => {
  const { records } = await importPreset('twilio', path.join(PRESET_FIXTURES, 'twilio', 'rest'));
  assert.deepEqual(ids(records.users), [
    '_15551230001_2qrzs4',
    'alice',
    'bob',
    'carol',
    'dave',
    'erin',
    'system',
    'whatsapp__15551230002_1pidtjh',
  ]);
  // CH...03 has a uniqueName, which the vendor takes for its guid instead (not asserted here).
  for (const guid of [
    'ch00000000000000000000000000000001_qsa9uu',
    'ch00000000000000000000000000000004_qsa9ux',
    'ch00000000000000000000000000000005_qsa9uy',
  ])
    assert.ok(records.groups[guid], guid);
  // The sids are sent as they are; the service (and so the sandbox) lower-cases ids as it stores them.
  assert.equal(records.messages.im00000000000000000000000000000004.sender, '_15551230001_2qrzs4');
  assert.ok(
    ids(records.messages).every((muid) => /^im[0-9a-f]{32}$/.test(muid)),
    'message sids, not transformed',
  );
});

test('slack: user, bot and channel ids by the vendor rule', async () => {
  const { records } = await importPreset('slack', path.join(PRESET_FIXTURES, 'slack'));
  for (const uid of ['u0bmyt2fl_1qcx3cn', 'u0bms113r_1q8zy24', 'u0bmqb6je_1q87bwa', 'b0jl6rasu_10eruon'])
    assert.ok(records.users[uid], uid);
  assert.deepEqual(ids(records.groups), ['c0jglmmnx_4hg8to', 'c0jl6cgq2_6iedgs']);
  assert.ok(records.messages.c0jl6cgq2_1459052866_000012_1fjpf1r, 'channel:ts through the same function');
});

test('mattermost: channel keys and group DMs by the vendor rule, usernames as they are', async () => {
  const { records } = await importPreset('mattermost', path.join(PRESET_FIXTURES, 'mattermost', 'export'));
  for (const uid of ['alice', 'bob', 'carol', 'dave', 'deploybot']) assert.ok(records.users[uid], uid);
  for (const guid of ['acme_town-square_j20f3s', 'acme_design_1bw4rge', 'dm_alice_bob_carol_xazmxp'])
    assert.ok(records.groups[guid], guid);
  assert.ok(records.messages['acme_town-square_1717236000000_alice_1m0j8p9'], 'a post: team:channel:time:user');
});

test('validate names both records of two export ids the vendor rule makes one, by file and line', async () => {
  const from = await sendbirdExport(['Alice', 'alice_11ptgg']);
  const dir = await tempDir();
  await writeConfig(dir, { preset: 'sendbird', from });
  const r = await runCli(['validate'], { cwd: dir });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const where = `${path.join(from, 'users', 'active_users.json')}`;
  assert.match(r.stdout, /id\.collision/);
  assert.match(r.stdout, /uid alice_11ptgg is the service id of the export ids "Alice", "alice_11ptgg"/);
  // The second record's place leads its line; the first's is named in it.
  const line = r.stdout.split('\n').find((l) => l.includes('id.collision')) ?? '';
  assert.match(line, /active_users\.json:\d+/);
  assert.match(line, /first record with it is at .*active_users\.json:\d+/);
  assert.ok(r.stdout.includes(path.basename(where)), r.stdout);

  // Under the collision-free rule the two stay apart.
  const apart = await runCli(['validate', '--id-rule', 'collision-free'], { cwd: dir });
  assert.equal(apart.code, 0, apart.stdout + apart.stderr);
});

test('`ids of` prints the service id of each export id under the configured rule', async () => {
  const dir = await tempDir();
  const r = await runCli(['ids', 'of', 'Alice', 'alice.smith@example.com'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'alice_11ptgg\nalice_smith_example_com_1t3ryhe\n');
  const group = await runCli(['ids', 'of', '--kind', 'group', 'messaging:general', '--json'], { cwd: dir });
  assert.deepEqual(JSON.parse(group.stdout), {
    kind: 'group',
    idRule: 'vendor',
    ids: [{ sourceId: 'messaging:general', id: 'messaging_general_1o0t3ea' }],
  });
  const message = await runCli(['ids', 'of', '--kind', 'message', 'IM00000000000000000000000000000001'], { cwd: dir });
  assert.equal(message.stdout, 'IM00000000000000000000000000000001\n');
  await writeConfig(dir, { idRule: 'collision-free' });
  const hashed = await runCli(['ids', 'of', 'Alice'], { cwd: dir });
  assert.equal(hashed.stdout, 'alice--hpcrayuxhrcy2wtp\n');
});

test('idRule collision-free still imports, and a resume under another rule is refused', async () => {
  const from = await sendbirdExport(['Alice', 'alice.smith@example.com']);
  const box = await sandbox();
  try {
    const dir = await tempDir();
    const config = { baseUrl: box.url, requestsPerMinute: 100000, retentionDays: 0, preset: 'sendbird', from };
    await writeConfig(dir, { ...config, idRule: 'collision-free' });
    const first = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.ok(box.records().users['alice--hpcrayuxhrcy2wtp'], 'the collision-free uid');
    assert.ok(box.records().groups['team_room--c2k6xahg3soxbsch'], 'the collision-free guid');

    await writeConfig(dir, config);
    const other = await runCli(['import'], { cwd: dir });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /CHECKPOINT_OTHER_ID_RULE/);
    assert.match(other.stderr, /made with idRule collision-free, not vendor/);
    assert.match(other.stderr, /--id-rule collision-free/);
    assert.equal(Object.keys(box.records().users).length, 2, 'nothing sent under the other rule');
  } finally {
    await box.close();
  }
});
