// Records that repeat (issue 14, "exports' odd values"): an exact copy of an earlier record under the
// same id is skipped as `duplicate` and counted; the same id with other content stays id.duplicate,
// naming the first place. Exports of overlapping ranges joined together have both.
// Build first: npm run build
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { contentHash, ExportIndex } from '../../dist/rules/index.js';
import { FIXTURES, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { PRESET_FIXTURES } from '../presets-helpers.mjs';

const NOW = 1_700_000_000;

test('contentHash: what would be sent, in any key order; a changed value changes it', () => {
  const a = { uid: 'u1', name: 'Ann', tags: ['x', 'y'], metadata: { plan: 'pro', n: 1 } };
  const reordered = { metadata: { n: 1, plan: 'pro' }, tags: ['x', 'y'], name: 'Ann', uid: 'u1' };
  assert.equal(contentHash(a), contentHash(reordered));
  assert.equal(contentHash(a), contentHash({ ...a, gone: undefined }), 'undefined is not sent');
  const others = [
    { ...a, name: 'Anne' },
    { ...a, tags: ['y', 'x'] },
    { ...a, metadata: { plan: 'pro', n: '1' } },
    { ...a, uid: 'U1' },
    { ...a, extra: null },
  ];
  for (const other of others) {
    assert.notEqual(contentHash(other), contentHash(a), JSON.stringify(other));
  }
  assert.notEqual(contentHash({ n: 2 ** 40 }), contentHash({ n: 2 ** 40 + 1 }));
  assert.notEqual(contentHash({ n: 0.5 }), contentHash({ n: 0.25 }));
});

/** @returns {import('../../dist/entities/types.js').MappedRecord} */
const rec = (entity, payload, id, line, file = `${entity}.ndjson`) => ({
  entity,
  payload,
  id,
  source: {},
  file,
  line,
  ordinal: line - 1,
  problems: [],
});

test('ExportIndex: an exact copy is skipped `duplicate`; other content is id.duplicate, naming the first', () => {
  const index = new ExportIndex({ configured: new Set(['users', 'groups', 'members']), nowSec: NOW });
  const ann = { uid: 'ann', name: 'Ann' };
  assert.deepEqual(index.check(rec('users', ann, 'ann', 1)), []);
  const copy = rec('users', { name: 'Ann', uid: 'ann' }, 'ann', 9, 'more.ndjson');
  assert.deepEqual(index.check(copy), []);
  assert.equal(copy.skip, 'duplicate');
  const other = rec('users', { ...ann, name: 'Ann B.' }, 'ann', 12);
  const problems = index.check(other).map((p) => [p.rule, p.message]);
  assert.deepEqual(problems, [['id.duplicate', 'duplicate uid ann; first seen at users.ndjson:1']]);
  assert.equal(other.skip, undefined);
  // A copy is not a second member of its group, and its references were checked at the first.
  index.check(rec('groups', { guid: 'g', name: 'G', type: 'public', owner: 'ann' }, 'g', 1));
  const member = { memberId: 'g_member_ghost', guid: 'g', uid: 'ghost' };
  const first = rec('members', member, 'g_member_ghost', 1);
  assert.deepEqual(index.check(first), []);
  assert.equal(first.blockedBy?.reason, 'missing', 'held by its missing user');
  const again = rec('members', { ...member }, 'g_member_ghost', 2);
  assert.deepEqual(index.check(again), []);
  assert.equal(again.skip, 'duplicate');
  assert.equal(again.blockedBy, undefined, 'a copy is skipped, not held');
});

test('ExportIndex, bloom mode: a repeated muid is a suspect; with the same content `sameContentSuspect`', () => {
  /** @type {Set<import('../../dist/entities/types.js').EntityName>} */
  const configured = new Set(['messages']);
  const index = new ExportIndex({ configured, nowSec: NOW, messageIds: 'bloom', contentBloomBytes: 1 << 16 });
  const m = (text) => ({ muid: 'm1', sender: 'u', receiverType: 'user', receiver: 'v', sentAt: NOW, data: { text } });
  const first = rec('messages', m('hi'), 'm1', 1);
  const copy = rec('messages', m('hi'), 'm1', 2);
  const edited = rec('messages', m('edited'), 'm1', 3);
  const other = rec('messages', { ...m('hi'), muid: 'm2' }, 'm2', 4);
  for (const r of [first, copy, edited, other]) assert.deepEqual(index.check(r), []);
  assert.deepEqual(
    [first, copy, edited, other].map((r) => [r.duplicateSuspect, r.sameContentSuspect, r.skip]),
    [
      [undefined, undefined, undefined],
      [true, true, undefined],
      [true, undefined, undefined],
      // The same content under another muid is another message.
      [undefined, undefined, undefined],
    ],
  );
  // validate's bloom mode keeps no content filter: the second reading tells copies apart exactly.
  const plain = new ExportIndex({ configured, nowSec: NOW, messageIds: 'bloom' });
  const again = rec('messages', m('hi'), 'm1', 2);
  for (const r of [rec('messages', m('hi'), 'm1', 1), again]) plain.check(r);
  assert.deepEqual([again.duplicateSuspect, again.sameContentSuspect], [true, undefined]);
  assert.equal(plain.recheckMessageId(rec('messages', m('hi'), 'm1', 1)), undefined);
  assert.equal(plain.recheckMessageId(rec('messages', m('hi'), 'm1', 2)), 'duplicate');
  assert.equal(/** @type {any} */ (plain.recheckMessageId(rec('messages', m('edited'), 'm1', 3))).rule, 'id.duplicate');
});

async function oddCopy(baseUrl, extra = {}) {
  const dir = await tempDir();
  await cp(path.join(FIXTURES, 'invalid', 'odd'), dir, { recursive: true });
  const base = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  await writeConfig(dir, { ...base, baseUrl, requestsPerMinute: 60000, ...extra });
  return dir;
}

test('validate: exact copies are counted as skipped, in the first reading and in the second (messages)', async () => {
  const dir = await oddCopy('http://127.0.0.1:9');
  const run = await runCli(['validate', '--json'], { cwd: dir });
  assert.equal(run.code, 3, run.stderr);
  const report = JSON.parse(run.stdout);
  const skipped = Object.fromEntries(Object.entries(report.byEntity).map(([e, c]) => [e, c.skipped]));
  assert.deepEqual(skipped, { users: 1, groups: 0, members: 1, messages: 2 });
  const dups = report.problems.filter((p) => p.rule === 'id.duplicate').map((p) => `${p.file}:${p.line} ${p.message}`);
  assert.deepEqual(dups, [
    'users.ndjson:4 duplicate uid ann; first seen at users.ndjson:1',
    'messages.ndjson:5 duplicate muid m1; first seen at messages.ndjson:1',
    'messages.ndjson:67 duplicate muid f7; first seen at messages.ndjson:7',
  ]);
});

test('import: exact copies are skipped `duplicate` (in the batch of the first or after it), not rejected', async () => {
  const sb = await sandbox();
  try {
    // Batches of 10, one request at a time: messages 66 and 67 repeat records of a batch answered by then.
    const dir = await oddCopy(sb.url, { batchSize: 10, concurrency: 1 });
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    const summary = JSON.parse(run.stdout);
    const counts = (e) => summary.entities[e];
    const skippedRejected = ['users', 'members', 'messages'].map((e) => [counts(e).skipped, counts(e).rejected]);
    assert.deepEqual(skippedRejected, [
      [1, 1],
      [1, 0],
      [2, 3],
    ]);
    assert.equal(counts('messages').imported, 62);
    assert.equal(counts('messages').alreadyPresent, 0);
    const stats = sb.stats().perEntity;
    // The copy after its first was answered went to the service once more (the tool keeps no list of
    // what it sent), came back already-exists, and was counted skipped, not imported twice.
    assert.equal(stats.messages.alreadyExists, 2);
    assert.equal(stats.messages.stored, 62);
    assert.equal(sb.records().users.ann.name, 'Ann');
    assert.equal(sb.records().messages.m1.data.text, 'text of m1');

    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    assert.deepEqual(
      rejects.map((r) => `${r.file}:${r.line} ${r.id} ${r.code}`),
      [
        'users.ndjson:4 ann id.duplicate',
        'messages.ndjson:3 m3 timestamp.invalid',
        'messages.ndjson:5 m1 id.duplicate',
        'messages.ndjson:67 f7 id.duplicate',
      ],
    );
    assert.match(rejects[0].message, /first seen at users\.ndjson:1$/);
    assert.match(rejects[2].message, /first seen at messages\.ndjson:1$/);
    assert.match(rejects[3].message, /an earlier record of the export has it .*other content.*`validate` names where/);
    assert.equal(rejects[3].record.data.text, 'edited later');
  } finally {
    await sb.close();
  }
});

const DISCORD = path.join(PRESET_FIXTURES, 'discord');
const GENERAL = 'Test Server - Text Channels - general [910000000000000001].json';

/** The Discord sample plus a second export of #general that overlaps the first by four messages and adds one. */
/** @param {(later: any) => void} [edit] */
async function overlappingDiscord(edit = () => {}) {
  const dir = path.join(await tempDir(), 'dce');
  await cp(DISCORD, dir, { recursive: true });
  const general = JSON.parse(await readFile(path.join(dir, GENERAL), 'utf8'));
  const last = general.messages.at(-1);
  const added = { ...last, id: '920000000000000009', timestamp: '2024-04-01T09:10:00.000+00:00', content: 'one more' };
  added.attachments = [];
  const messages = [...structuredClone(general.messages.slice(4)), added];
  const later = { ...general, dateRange: { after: '2024-04-01T09:05:30+00:00', before: null }, messages };
  later.messageCount = later.messages.length;
  edit(later);
  const name = 'Test Server - Text Channels - general [910000000000000001] (after 09-05).json';
  await writeFile(path.join(dir, name), JSON.stringify(later, null, 2));
  return dir;
}

async function importDiscord(dir) {
  const sb = await sandbox();
  try {
    const work = await tempDir();
    await writeConfig(work, { baseUrl: sb.url, requestsPerMinute: 60000 });
    const run = await runCli(['import', '--preset', 'discord', '--from', dir, '--json'], { cwd: work });
    const rejects = await readNdjson(path.join(work, 'migrate-rejects.ndjson'));
    return { run, summary: JSON.parse(run.stdout), stats: sb.stats().perEntity, records: sb.records(), rejects };
  } finally {
    await sb.close();
  }
}

test('discord: two overlapping exports of a channel: what repeats is skipped `duplicate`', async () => {
  const { run, summary, stats, records } = await importDiscord(await overlappingDiscord());
  assert.equal(run.code, 0, run.stderr);
  assert.equal(summary.status, 'completed');
  const e = summary.entities;
  for (const name of ['users', 'groups', 'members', 'messages']) {
    assert.equal(e[name].rejected, 0, name);
    assert.equal(e[name].imported + e[name].skipped, e[name].read, name);
    assert.equal(stats[name].stored, e[name].imported, name);
  }
  // The sample alone: groups 3 (1 skipped as a DM), members 7, messages 14 (2 join events skipped).
  // Two files of one channel are one channel (the preset merges them, as DiscordChatExporter's
  // --partition writes them): its group and members come once, only the messages repeat.
  assert.deepEqual([e.groups.read, e.groups.skipped], [3, 1]);
  assert.deepEqual([e.members.read, e.members.skipped], [7, 0]);
  assert.deepEqual([e.messages.read, e.messages.skipped, e.messages.imported], [19, 6, 13]);
  assert.equal(records.messages['920000000000000009'].data.text, 'one more');
});

test('discord: a message edited between the two exports is the same id with other content: id.duplicate', async () => {
  const dir = await overlappingDiscord((later) => {
    const m = later.messages.find((x) => x.id === '920000000000000008');
    m.content = 'photo from the meetup (edited)';
    m.timestampEdited = '2024-04-01T09:30:00.000+00:00';
  });
  const { run, summary, records, rejects } = await importDiscord(dir);
  assert.equal(run.code, 3, run.stderr);
  assert.deepEqual([summary.entities.messages.skipped, summary.entities.messages.rejected], [5, 1]);
  assert.deepEqual(
    rejects.map((r) => `${r.id} ${r.code}`),
    ['920000000000000008 id.duplicate'],
  );
  assert.equal(records.messages['920000000000000008'].data.text, 'photo from the meetup', 'the first one read is kept');
});
