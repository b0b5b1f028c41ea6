// Each preset on an "ugly" export (fixtures/presets/<name>-ugly): what real exports hold and the
// tidy fixtures do not. The built CLI imports it into a real sandbox; every record is stored or
// skipped with a counted reason, nothing is rejected, and the hard cases land as they should.
import assert from 'node:assert/strict';
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageIdOf, toVendorId } from '../../dist/systems/preset.js';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { PRESET_FIXTURES, zipFolder } from '../presets-helpers.mjs';

/** A muid under the default id rule (the vendor's: the message id as it is when the service takes it). */
const muidOf = (id) => messageIdOf('vendor', id);

const ENTITIES = ['users', 'groups', 'members', 'messages'];

/** Copies the fixture, adds the empty folders git cannot keep, imports it; returns summary and records. */
async function importUgly(preset, fixture, { emptyFolders = [], zip = false } = {}) {
  const dir = await tempDir('cm-ugly-');
  const from = path.join(dir, 'export');
  await cp(path.join(PRESET_FIXTURES, fixture), from, { recursive: true });
  for (const folder of emptyFolders) await mkdir(path.join(from, folder), { recursive: true });
  const source = zip ? await zipFolder(from, path.join(dir, 'export.zip')) : from;
  const box = await sandbox();
  try {
    await writeConfig(dir, { baseUrl: box.url, requestsPerMinute: 100000 });
    const r = await runCli(['import', '--preset', preset, '--from', source, '--json'], { cwd: dir });
    assert.equal(r.code, 0, `exit code\n${r.stderr}\n${r.stdout}`);
    assert.doesNotMatch(r.stderr, /unexpected failure/);
    const summary = JSON.parse(r.stdout);
    const stats = box.stats().perEntity;
    for (const e of ENTITIES) {
      const c = summary.entities[e];
      assert.equal(c.rejected, 0, `${e}: nothing rejected`);
      assert.equal(c.fileProblems, 0, `${e}: no file problems`);
      assert.equal(c.imported + c.alreadyPresent + c.skipped, c.read, `${e}: every record stored or skipped`);
      const reasons = Object.values(c.skippedBy).reduce((a, b) => a + b, 0);
      assert.equal(reasons, c.skipped, `${e}: every skip has a reason`);
      assert.equal(stats[e].stored, c.imported, `${e}: the sandbox holds what was imported`);
    }
    const records = box.records();
    for (const m of Object.values(records.messages)) {
      assert.ok(records.users[m.sender], `sender ${m.sender} exists`);
      assert.ok((m.receiverType === 'group' ? records.groups : records.users)[m.receiver], `receiver ${m.receiver}`);
      assert.ok(Number.isInteger(m.sentAt), 'sentAt in whole seconds');
    }
    return { summary, records };
  } finally {
    await box.close();
  }
}

const counts = (summary) =>
  Object.fromEntries(ENTITIES.map((e) => [e, [summary.entities[e].read, summary.entities[e].skippedBy]]));

for (const zip of [false, true]) {
  test(`slack-ugly${zip ? ' as a zip' : ''}: stubs, tombstones, threads across days, deleted users, bots`, async () => {
    const { summary, records } = await importUgly('slack', 'slack-ugly', { emptyFolders: ['empty-dir'], zip });
    assert.deepEqual(counts(summary), {
      users: [7, {}],
      groups: [7, { 'direct-conversation': 2 }],
      members: [10, { 'direct-conversation': 3 }],
      messages: [25, { 'soft-deleted': 1, 'join-leave': 1, 'no-sender': 1, 'no-timestamp': 1 }],
    });
    const msg = (channel, ts) => records.messages[muidOf(`${channel}:${ts}`)];
    const parent = muidOf('C01GEN:1704067200.000100');
    assert.equal(msg('C01GEN', '1704153600.000200').data.metadata.threadParent, parent, 'reply a day later');
    assert.equal(msg('C01GEN', '1704067260.000200'), undefined, 'the tombstone is a deleted message');
    assert.equal(msg('C01GEN', '1704067800.000000').data.text, '[file: F01TOMB]');
    assert.deepEqual(msg('C01GEN', '1704067900.000000').data.metadata.filesUnavailable, [
      { id: 'F02HIDDEN', mode: 'hidden_by_limit' },
    ]);
    assert.equal(msg('C01GEN', '1704068300.500000').sentAt, 1704068300, 'a ts cut short is padded');
    assert.equal(msg('C01GEN', '1704068500.000000').data.text, '[huddle]');
    assert.equal(msg('C01GEN', '1704068600.000000').data.text, ':tada:', 'blocks-only text');
    const reactions = msg('C01GEN', '1704067200.000100').data.metadata.reactions.map((r) => r.name);
    assert.deepEqual(reactions, ['+1::skin-tone-4', 'wave::skin-tone-2']);
    assert.equal(records.users[toVendorId('U02GONE')].deactivatedAt, 1703000000);
    assert.equal(records.users[toVendorId('UDELETED9')].name, 'Old Timer');
    assert.ok(records.users[toVendorId('B09NOPROFILE')], 'a bot with no profile is a user');
    const file = msg('C01GEN', '1704068100.000000').data.attachments[0];
    assert.equal(file.url, 'https://files.slack.com/files-pri/T1-F04OK/report.pdf', 'no token in the URL');
    assert.ok(records.groups[toVendorId('C02QUIET')] && records.groups[toVendorId('C03EMPTYDIR')]);
  });
}

test('sendbird-ugly: pages, removed and edited messages, expired files, a member no list has', async () => {
  const { summary, records } = await importUgly('sendbird', 'sendbird-ugly', { emptyFolders: ['empty-folder'] });
  assert.deepEqual(counts(summary), {
    users: [5, {}],
    groups: [4, { 'direct-conversation': 1 }],
    members: [6, { 'direct-conversation': 2 }],
    // 5007 holds two files: two messages.
    messages: [16, { 'soft-deleted': 1, 'no-sender': 1, 'no-id': 1, 'no-timestamp': 1 }],
  });
  assert.equal(records.messages['5101'].data.metadata.parentMessageId, '5001', 'reply in the second page');
  assert.equal(records.messages['5002'].data.metadata.editedAt, 1650001600);
  assert.equal(records.messages['5006'].data.text, '[file: expired.pdf]');
  assert.deepEqual(
    ['5007', muidOf('5007#2')].map((id) => records.messages[id].data.attachments.map((a) => a.name)),
    [['a.png'], ['b.png']],
    'one message a file',
  );
  assert.deepEqual(
    records.messages['5001'].data.metadata.reactions.map((r) => r.key),
    ['👍🏽', 'thumbs_up_medium_skin_tone'],
  );
  assert.ok(records.users.ghost && records.users.helpbot && records.groups.silent && records.groups['never-listed']);
});

test('stream-ugly: replies in another file, deleted users and messages, gone uploads', async () => {
  const { summary, records } = await importUgly('stream', 'stream-ugly');
  assert.deepEqual(counts(summary), {
    users: [6, {}],
    groups: [4, { 'direct-conversation': 1 }],
    members: [6, { 'direct-conversation': 2 }],
    messages: [17, { 'soft-deleted': 2, ephemeral: 1, 'no-id': 1, 'no-sender': 1 }],
  });
  assert.equal(records.messages['m-reply-1'].data.metadata.parentId, 'm-parent');
  assert.equal(records.messages['m-empty'].data.text, '[file: expired.pdf]');
  assert.equal(records.messages['dm-1'].receiverType, 'user');
  assert.equal(records.users['removed-user'].deactivatedAt, 1740873600);
  assert.deepEqual(
    records.messages['m-parent'].data.metadata.reactions.map((r) => r.type),
    ['thumbsup_tone4', '👍🏻'],
  );
});

test('discord-ugly: a channel and a DM split over --partition files, Deleted User, a webhook bot', async () => {
  const { summary, records } = await importUgly('discord', 'discord-ugly');
  assert.deepEqual(counts(summary), {
    users: [4, {}],
    groups: [4, { 'direct-conversation': 1 }],
    members: [5, {}],
    messages: [14, { 'no-sender': 1, 'no-id': 1, 'join-leave': 1 }],
  });
  assert.equal(records.messages['820000000000000101'].receiver, '810000000000000001', 'part 2 is the same channel');
  assert.equal(records.messages['820000000000000101'].data.metadata.replyTo, '820000000000000001');
  assert.equal(records.messages['860000000000000002'].receiverType, 'user', 'the DM over two parts is a DM');
  assert.equal(records.messages['820000000000000002'].sentAt, 1717236060);
  assert.equal(records.users['456226577798135808'].name, 'Deleted User');
  assert.equal(records.messages['820000000000000004'].data.text, 'Deploy\nv1.2 is live');
});

test('telegram-ugly: deleted accounts, media not included, a chat with no messages, saved messages', async () => {
  const { summary, records } = await importUgly('telegram', 'telegram-ugly', { emptyFolders: ['photos'] });
  assert.deepEqual(counts(summary), {
    users: [7, {}],
    groups: [6, { 'direct-conversation': 3 }],
    members: [6, {}],
    messages: [22, { 'join-leave': 1, 'no-id': 1, 'no-sender': 1, 'no-timestamp': 1 }],
  });
  assert.equal(records.users.user5999.name, 'Deleted Account');
  assert.equal(records.messages['9001-6'].data.text, '[photo]');
  assert.equal(records.messages['9001-10'].data.text, '[sticker 👍🏿]');
  assert.equal(records.messages['9001-4'].data.text, 'edited twice');
  assert.ok(records.groups['9002'], 'the chat with no messages is a group');
});

test('every preset on an empty folder stops with a typed error, not a crash; init says nothing is there', async () => {
  const dir = await tempDir('cm-ugly-');
  await mkdir(path.join(dir, 'export', 'empty'), { recursive: true });
  for (const preset of ['slack', 'sendbird', 'stream', 'discord', 'telegram']) {
    const r = await runCli(['validate', '--preset', preset, '--from', 'export'], { cwd: dir });
    assert.equal(r.code, 1, `${preset}\n${r.stderr}`);
    assert.match(r.stderr, /\[INPUT_NOT_PRESET\]/, preset);
  }
  const init = await runCli(['init', 'export'], { cwd: dir });
  assert.equal(init.code, 3);
  assert.match(init.stdout, /Nothing to import found/);
});
