// The twilio preset: Conversations API list pages (snake_case) and Twilio CLI output (camelCase),
// read by content; map-level checks, odd input, and end to end against the sandbox (folder and zip).
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { Readable } from 'node:stream';
import { messageIdOf, toVendorId } from '../../dist/systems/preset.js';
import { readPieces } from '../../dist/sources/read-pieces.js';
import { tempDir } from '../helpers.mjs';
import { assertAccounted, importWithConfig } from '../preset-run.mjs';
import { byId, plan, PRESET_FIXTURES, readIdMap, readPlans, zipFolder } from '../presets-helpers.mjs';

/** A muid under the default id rule (the vendor's: the message id as it is when the service takes it). */
const muidOf = (id) => messageIdOf('vendor', id);

const REST = path.join(PRESET_FIXTURES, 'twilio', 'rest');
const CLI = path.join(PRESET_FIXTURES, 'twilio', 'cli');
const sid = (prefix, n) => `${prefix}${n.toString(16).padStart(32, '0')}`;
const guid = (n) => toVendorId(sid('CH', n));
const SMS = '+15551230001';
const WHATSAPP = 'whatsapp:+15551230002';

/** Every item of the REST fixture's pages, by list key. */
async function restItems() {
  const out = { users: [], conversations: [], participants: [], messages: [] };
  for (const f of await readdir(REST)) {
    const text = await readFile(path.join(REST, f), 'utf8');
    const pages = f.endsWith('.jsonl')
      ? text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [JSON.parse(text)];
    for (const page of pages) for (const key of Object.keys(out)) out[key].push(...(page[key] ?? []));
  }
  return out;
}

// users: 4 listed + the SMS and WhatsApp participants + dave (a participant no users page lists) + `system`
// groups: 4 listed + CH5, known only from its messages page; CH2 (alice and bob) is user to user
// members: 10 participants; CH2's two go user to user, one has neither identity nor address
// messages: 12; one has no body and no media
const EXPECTED = {
  users: { read: 8, imported: 8 },
  groups: { read: 5, imported: 4, skippedBy: { 'direct-conversation': 1 } },
  members: { read: 10, imported: 7, skippedBy: { 'direct-conversation': 2, 'no-identity': 1 } },
  messages: { read: 12, imported: 11, skippedBy: { empty: 1 } },
};

test('twilio: REST pages and CLI output give the same records, by content not by file name', async () => {
  const items = await restItems();
  const rest = await readPlans((await plan('twilio', REST)).plans);
  const cli = await readPlans((await plan('twilio', CLI)).plans);
  for (const e of ['users', 'groups', 'members', 'messages']) {
    assert.deepEqual(rest[e].problems, [], e);
    assert.deepEqual(rest[e].errors, [], e);
    assert.deepEqual(cli[e].sent, rest[e].sent, `${e}: both spellings`);
    assert.equal(rest[e].read, EXPECTED[e].read, `${e} read`);
    assert.deepEqual(rest[e].skipped, EXPECTED[e].skippedBy ?? {}, `${e} skipped`);
  }
  assert.equal(rest.members.read, items.participants.length);
  assert.equal(rest.messages.read, items.messages.length);
  assert.equal(rest.groups.read, items.conversations.length + 1);

  const users = byId(rest.users.sent, 'uid');
  assert.deepEqual(users.alice, {
    uid: 'alice',
    name: 'Alice Archer',
    createdAt: 1704099600,
    metadata: {
      twilioIdentity: 'alice',
      twilioSid: sid('US', 1),
      attributes: { team: 'design' },
      roleSid: sid('RL', 1),
    },
  });
  assert.deepEqual(users[toVendorId(SMS)], {
    uid: toVendorId(SMS),
    name: SMS,
    metadata: { channel: 'sms', proxyAddress: '+15557650000', sourceId: SMS, from: 'messages' },
  });
  assert.equal(users[toVendorId(WHATSAPP)].name, WHATSAPP);
  assert.ok(users.system && users.dave && users.erin, 'the system author, an unlisted identity, a silent user');

  const groups = byId(rest.groups.sent, 'guid');
  assert.equal(groups[guid(1)].name, 'Project Falcon');
  assert.equal(groups[guid(3)], undefined, 'a conversation with a uniqueName is addressed by it');
  const support = groups[toVendorId('support-4711')];
  assert.equal(support.name, 'support-4711', 'unique_name when there is no friendly_name');
  assert.equal(support.metadata.state, 'closed');
  assert.equal(support.metadata.twilioSid, sid('CH', 3), 'its sid kept on the service');
  assert.equal(groups[guid(5)].name, sid('CH', 5), 'the sid when there is no name');
  assert.ok(Object.values(groups).every((g) => g.type === 'private'));

  const messages = rest.messages.sent;
  assert.deepEqual(
    messages.filter((m) => m.receiver === guid(1)).map((m) => m.data.metadata.index),
    [0, 1, 2, 4, 7],
    'index order, pages in two files named against it',
  );
  const m = byId(messages, 'muid');
  assert.deepEqual(m[muidOf(sid('IM', 3))].data, {
    text: 'Yes, see the mockup',
    attachments: [
      {
        url: `https://mcs.us1.twilio.com/v1/Services/${sid('IS', 1)}/Media/${sid('ME', 1)}/Content`,
        name: 'falcon-mockup.png',
        mimeType: 'image/png',
        extension: 'png',
        size: '48213',
      },
    ],
    metadata: { index: 2, editedAt: 1709283900 },
  });
  assert.equal(m[muidOf(sid('IM', 3))].type, 'image');
  assert.deepEqual(m[muidOf(sid('IM', 2))].data.metadata.attributes, { importance: 'high' });
  assert.equal(m[muidOf(sid('IM', 4))].data.metadata.attributes, 'not json at all', 'kept as text');
  assert.equal(m[muidOf(sid('IM', 4))].sender, toVendorId(SMS));
  assert.equal(m[muidOf(sid('IM', 1))].sender, 'system');
  assert.equal(m[muidOf(sid('IM', 6))].sentAt, 1709284320, 'sub-second time');
  const dm = m[muidOf(sid('IM', 7))];
  assert.deepEqual([dm.sender, dm.receiverType, dm.receiver], ['alice', 'user', 'bob']);
  assert.deepEqual(m[muidOf(sid('IM', 12))].data.metadata.mediaUnavailable, [
    { sid: sid('ME', 3), filename: 'receipt.jpg' },
  ]);
  assert.ok(!JSON.stringify(messages).includes('delivery'), 'delivery receipts are left out');
});

test('twilio: the id map lists users, groups (not the direct one) and messages', async () => {
  const { idMapFile } = await plan('twilio', REST);
  const lines = await readIdMap(idMapFile);
  const count = (entity) => lines.filter((l) => l.entity === entity).length;
  assert.deepEqual([count('users'), count('groups'), count('messages')], [7, 4, 12]);
  assert.ok(lines.some((l) => l.entity === 'users' && l.sourceId === SMS && l.id === toVendorId(SMS)));
});

test('twilio: odd files are counted, never a crash', async () => {
  const dir = await tempDir('cm-twilio-odd-');
  await mkdir(path.join(dir, 'sub'));
  const page = (key, items) => JSON.stringify({ [key]: items, meta: { key } });
  await writeFile(path.join(dir, 'empty.json'), '');
  await writeFile(path.join(dir, 'nothing.json'), '[]');
  await writeFile(path.join(dir, 'notes.txt'), 'not read');
  await writeFile(path.join(dir, 'roles.json'), page('roles', [{ sid: 'RL1', friendly_name: 'admin' }]));
  // The CLI's receipts list: items with a conversation_sid, but a receipt's SID (DY...)
  const receipt = { sid: `DY${'0'.repeat(32)}`, conversationSid: 'CHa', messageSid: 'IM1', status: 'read' };
  await writeFile(path.join(dir, 'receipts.json'), JSON.stringify([receipt]));
  await writeFile(
    path.join(dir, 'conversations.json'),
    page('conversations', [{ sid: 'CHa', friendly_name: 'A' }, { friendly_name: 'no sid' }, 'a string']),
  );
  await writeFile(
    path.join(dir, 'sub', 'p.json'),
    page('participants', [
      { conversation_sid: 'CHa', identity: 'x' },
      { identity: 'y' },
      {},
      { conversation_sid: 'CHa' },
    ]),
  );
  await writeFile(
    path.join(dir, 'sub', 'm.json'),
    `${page('messages', [
      { sid: 'IM1', conversation_sid: 'CHa', author: 'x', body: 'hi', date_created: '2024-01-01T00:00:00Z' },
      { sid: 'IM2', conversation_sid: 'CHa', body: 'no author, no time' },
      { sid: 'IM3', author: 'x', body: 'no conversation', date_created: '2024-01-01T00:00:01Z' },
      { conversation_sid: 'CHa', author: 'x', body: 'no sid', date_created: '2024-01-01T00:00:02Z' },
      { sid: 'IM5', conversation_sid: 'CHa', author: 'x', body: 'x', date_created: 'yesterday', media: 'nope' },
    ])}\n{"messages": [{"sid": "IM6", broken`,
  );
  const r = await readPlans((await plan('twilio', dir)).plans);
  assert.deepEqual([r.users.read, r.groups.read, r.members.read, r.messages.read], [2, 2, 4, 5]);
  assert.deepEqual(r.groups.skipped, { 'no-id': 1 });
  assert.deepEqual(r.members.skipped, { 'no-conversation': 2, 'no-identity': 1 });
  assert.deepEqual(r.messages.skipped, { 'no-timestamp': 2, 'no-conversation': 1, 'no-id': 1 });
  assert.deepEqual(r.messages.errors, []);
  assert.deepEqual([...r.groups.problems, ...r.messages.problems].map((p) => p.rule).sort(), [
    'input.json-syntax',
    'input.not-object',
  ]);
  assert.equal(byId(r.users.sent, 'uid').system.name, 'System', 'a message without author comes from system');

  const none = await tempDir('cm-twilio-none-');
  await writeFile(path.join(none, 'a.json'), '{"something": []}');
  await assert.rejects(plan('twilio', none), { code: 'INPUT_NOT_PRESET' });
});

test('twilio: pull run folders read as one export, oldest first; records a delta lists again are skipped', async () => {
  const dir = await tempDir('cm-twilio-runs-');
  const page = (key, items) => JSON.stringify({ [key]: items, meta: { key } });
  const at = (s) => `2024-03-01T10:00:${String(s).padStart(2, '0')}Z`;
  const user = (identity, name, updated) => ({
    identity,
    friendly_name: name,
    date_created: at(0),
    date_updated: updated,
  });
  const conv = (name) => ({ sid: 'CHa', friendly_name: name, date_created: at(0) });
  const member = (identity) => ({ conversation_sid: 'CHa', identity, date_created: at(1) });
  const message = (n) => ({
    sid: `IM${n}`,
    conversation_sid: 'CHa',
    author: 'ann',
    body: `m${n}`,
    date_created: at(n),
  });
  // "delta-" sorts before "full-": the stamp, not the name, must decide which copy is the first.
  const full = path.join(dir, 'full-20240301T100000Z');
  const delta = path.join(dir, 'delta-20240302T100000Z');
  for (const d of [full, delta]) await mkdir(d);
  await writeFile(path.join(full, 'users.json'), page('users', [user('ann', 'Ann', at(0)), user('bo', 'Bo', at(0))]));
  await writeFile(path.join(full, 'conversations.json'), page('conversations', [conv('Team')]));
  await writeFile(path.join(full, 'participants.json'), page('participants', ['ann', 'bo', 'cy'].map(member)));
  await writeFile(path.join(full, 'messages.json'), page('messages', [message(1), message(2)]));
  // The delta: ann renamed, the conversation renamed, one new member and cy listed again, a new message.
  await writeFile(path.join(delta, 'users.json'), page('users', [user('ann', 'Ann B.', at(9))]));
  await writeFile(path.join(delta, 'conversations.json'), page('conversations', [conv('Team 2')]));
  await writeFile(path.join(delta, 'participants.json'), page('participants', ['cy', 'dee'].map(member)));
  await writeFile(path.join(delta, 'messages.json'), page('messages', [message(3)]));
  const r = await readPlans((await plan('twilio', dir)).plans);
  assert.deepEqual(r.users.skipped, { 'pulled-again': 1 });
  assert.equal(byId(r.users.sent, 'uid').ann.name, 'Ann', "the full run's copy, already imported, is the record");
  assert.deepEqual(r.groups.skipped, { 'pulled-again': 1 });
  assert.equal(r.groups.sent[0].name, 'Team');
  assert.deepEqual(r.members.skipped, { 'pulled-again': 1 });
  assert.deepEqual(r.members.sent.map((m) => m.uid).sort(), ['ann', 'bo', 'cy', 'dee']);
  assert.equal(r.groups.sent[0].owner, 'ann', "the owner is the full run's first participant, not the delta's");
  assert.deepEqual(
    r.messages.sent.map((m) => m.data.text),
    ['m1', 'm2', 'm3'],
  );
  for (const e of ['users', 'groups', 'members', 'messages']) assert.deepEqual(r[e].errors, [], e);
});

test('read layer: a sequence of JSON documents, as appended pages are', async () => {
  const read = async (text, layout) => {
    const out = [];
    const source = { display: 'x.json', open: async () => Readable.from([Buffer.from(text)]) };
    for await (const p of readPieces(source, layout)) {
      if (p.ok === false) out.push(p.rule);
      else out.push([p.path.join('.'), p.value, p.line]);
    }
    return out;
  };
  const sequence = { sequence: (p) => p.length <= 2 };
  assert.deepEqual(await read('[\n  {"a": 1}\n]\n[\n  {"a": 2}\n]\n', sequence), [
    ['0.0.a', 1, 2],
    ['1.0.a', 2, 5],
  ]);
  assert.deepEqual(await read('{"m": [1, 2]}\n{"m": [3]}\n7 "x"', sequence), [
    ['0.m.0', 1, 1],
    ['0.m.1', 2, 1],
    ['1.m.0', 3, 2],
    ['2', 7, 3],
    ['3', 'x', 3],
  ]);
  assert.deepEqual(await read('{"m": [1]}, {"m": [2]}', sequence), [['0.m.0', 1, 1], 'input.json-syntax']);
  assert.deepEqual(await read('{"m": [1]}\n{"m": [', sequence), [['0.m.0', 1, 1], 'input.json-syntax']);
  // Without the option a second document is still an error.
  assert.deepEqual(await read('{"m": [1]}\n{"m": [2]}', (p) => p.length <= 1), [['m.0', 1, 1], 'input.json-syntax']);
});

test('twilio end to end: a config with the preset, folder, zip and CLI output', async () => {
  assertAccounted(await importWithConfig('twilio', REST), EXPECTED);
  const zip = await zipFolder(REST, path.join(await tempDir(), 'twilio-pages.zip'), { prefix: 'export/' });
  const zipped = await importWithConfig('twilio', zip);
  assertAccounted(zipped, EXPECTED);
  const cli = await importWithConfig('twilio', path.join(CLI, 'twilio-cli-output.json'));
  assertAccounted(cli, EXPECTED);
  assert.deepEqual(cli.records.messages, zipped.records.messages, 'the same messages whichever the spelling');
});
