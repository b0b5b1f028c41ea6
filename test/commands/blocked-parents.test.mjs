// Issue 25, point 1: a user or group that is not in (rejected by a rule or by the service, skipped, or
// missing from the export) holds its members and messages back: counted blocked with the parent's id and
// place (a missing one's is its first child's), listed by validate once per parent, shown by the summary,
// status and the report, and sent by the run that brings it in.
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { ExportIndex } from '../../dist/rules/index.js';
import { MAX_MISSING_PARENTS } from '../../dist/rules/blocked-parents.js';
import { messageLine, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const LONG_NAME = 'B'.repeat(150);

/**
 * users alice and bob (bob's name too long), group g1 with both as members, m0-m10 from bob, m11 from alice.
 * `missing`: bob is not in the users file at all, and m12 (line 13) goes to g9, not in the groups file.
 */
async function workspace(sb, { bobName = LONG_NAME, config = {}, missing = false } = {}) {
  const dir = await tempDir();
  const users = [{ uid: 'alice', name: 'A' }];
  if (!missing) users.push({ uid: 'bob', name: bobName });
  await writeFile(path.join(dir, 'users.ndjson'), users.map((u) => `${JSON.stringify(u)}\n`).join(''));
  await writeFile(path.join(dir, 'groups.ndjson'), `${JSON.stringify({ guid: 'g1', name: 'G', type: 'public' })}\n`);
  const members = ['alice', 'bob'].map((uid) => `${JSON.stringify({ guid: 'g1', uid })}\n`);
  await writeFile(path.join(dir, 'members.ndjson'), members.join(''));
  const messages = Array.from({ length: 12 }, (_, i) => messageLine(i, { sender: i < 11 ? 'bob' : 'alice' }));
  if (missing) messages.push(messageLine(12, { receiver: 'g9' }));
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.join('\n')}\n`);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    retentionDays: 0,
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
    ...config,
  });
  return dir;
}

const bobsMessages = (sb) => Object.keys(sb.records().messages).filter((id) => Number(id.slice(1)) < 11);
const bobsMembership = (sb) => Object.values(sb.records().members).filter((m) => m.uid === 'bob');

test('validate lists one line per parent with what it holds back, not one per child', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb);
  const text = await runCli(['validate'], { cwd: dir });
  assert.equal(text.code, 3, text.stderr);
  assert.match(
    text.stdout,
    /users\.ndjson:2: user bob: holds back 1 member and 11 messages: the user is rejected \(user\.name\.too-long\)/,
  );
  const doc = JSON.parse((await runCli(['validate', '--json'], { cwd: dir })).stdout);
  const held = doc.problems.filter((p) => p.rule === 'parent.holds-back');
  assert.deepEqual(
    held.map((p) => `${p.file}:${p.line} ${p.entity} ${p.id}`),
    ['users.ndjson:2 users bob'],
  );
  assert.equal(doc.problems.filter((p) => p.entity === 'messages' || p.entity === 'members').length, 0);
});

test('import holds the children, counts them blocked, and a second import still sends none', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb);
  const first = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(first.code, 3, first.stderr);
  const doc = JSON.parse(first.stdout);
  assert.equal(doc.entities.members.blocked, 1);
  assert.equal(doc.entities.messages.blocked, 11);
  assert.equal(doc.entities.messages.imported, 1);
  assert.equal(doc.totals.unsent, 0, 'every record read is accounted for');
  assert.deepEqual(bobsMessages(sb), [], "bob's messages are not sent");
  assert.deepEqual(bobsMembership(sb), [], "bob's membership is not sent");
  const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
  assert.deepEqual(
    rejects.map((r) => `${r.id} ${r.code}`),
    ['bob user.name.too-long'],
    'the children are not rejects',
  );
  assert.match(doc.migration.statusLine, /12 records blocked by a user or group not in/);

  const requests = sb.stats().requests;
  const again = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(again.code, 3, again.stderr);
  const second = JSON.parse(again.stdout);
  assert.equal(second.entities.messages.blocked, 11, 'held across runs, from the checkpoint');
  assert.equal(second.entities.members.blocked, 1);
  assert.equal(sb.stats().requests, requests, 'nothing is sent while bob is out');
});

test('status and the report show what is blocked and by whom', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb);
  await runCli(['import'], { cwd: dir });
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.equal(status.migration.entities.messages.blocked, 11);
  assert.equal(status.migration.entities.members.blocked, 1);
  assert.equal(status.migration.entities.messages.notYetSent, 0);
  const [parent] = status.migration.blockedParents;
  assert.deepEqual(
    [parent.id, parent.file, parent.line, parent.reason, parent.held],
    ['bob', 'users.ndjson', 2, 'user.name.too-long', { members: 1, messages: 11 }],
  );
  const text = (await runCli(['status'], { cwd: dir })).stdout;
  assert.match(text, /messages \(done\): .*11 blocked by a user or group not in/);
  assert.match(
    text,
    /users\.ndjson:2: user bob, rejected \(user\.name\.too-long\), holds back 1 member and 11 messages/,
  );

  const md = (await runCli(['report', '--format', 'md', '--out', '-'], { cwd: dir })).stdout;
  assert.match(md, /\| blocked \(their user or group is not in\) \| 0 \| 0 \| 1 \| 11 \| 12 \|/);
  assert.match(
    md,
    /`users\.ndjson:2` user bob, rejected \(user\.name\.too-long\), holds back 1 member and 11 messages/,
  );
  const out = path.join(dir, 'report.html');
  const made = await runCli(['report', '--out', out], { cwd: dir });
  assert.equal(made.code, 0, made.stderr);
  const html = await readFile(out, 'utf8');
  assert.match(html, /data-figure="messages\.blocked">11</);
  assert.match(html, /data-blocked="users:bob"/);
});

test('a replay of the fixed user brings its membership and messages in the same run, once each', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb);
  await runCli(['import'], { cwd: dir });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');
  const fixed = (await readNdjson(rejectsFile)).map((r) => ({ ...r, record: { ...r.record, name: 'Bob' } }));
  await writeFile(rejectsFile, fixed.map((r) => `${JSON.stringify(r)}\n`).join(''));

  const replay = await runCli(['replay', '--json'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stderr);
  const doc = JSON.parse(replay.stdout);
  assert.equal(doc.entities.messages.imported, 11);
  assert.equal(doc.entities.members.imported, 1);
  assert.equal(doc.entities.messages.blocked, 0);
  assert.equal(sb.records().users.bob.name, 'Bob');
  assert.equal(bobsMessages(sb).length, 11);
  assert.equal(bobsMembership(sb).length, 1);
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.equal(status.migration.state, 'complete');
  assert.deepEqual(status.migration.blockedParents, []);

  // Once each: the id log holds every message once, and a later import sends nothing.
  const logged = (await readNdjson(path.join(dir, '.migrate-checkpoint.imported.ndjson')))
    .filter((l) => l.entity !== undefined) // not the batches' write-ahead and answered lines
    .map((l) => l.id);
  assert.equal(logged.length, new Set(logged).size);
  const requests = sb.stats().requests;
  const after = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(after.code, 0, after.stderr);
  assert.equal(sb.stats().requests, requests, 'nothing is sent twice');
});

test('an import after the export is fixed sends what the user held back', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb);
  await runCli(['import'], { cwd: dir });
  const users = path.join(dir, 'users.ndjson');
  await writeFile(users, (await readFile(users, 'utf8')).replace(LONG_NAME, 'Bob'));
  const fixed = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
  const doc = JSON.parse(fixed.stdout);
  assert.equal(doc.entities.messages.imported, 11);
  assert.equal(doc.entities.members.imported, 1);
  assert.equal(bobsMessages(sb).length, 11);
  assert.match(doc.migration.statusLine, /^Complete/);
});

test('a user the service refuses holds its membership and messages back too', async (t) => {
  // Every request holding bob fails with 500: split down to bob alone, he is refused (HTTP_500).
  const sb = await sandbox({ faults: { poisonIdPattern: '^bob$' } });
  t.after(() => sb.close());
  const dir = await workspace(sb, { bobName: 'Bob', config: { retries: 4 } });
  const run = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(run.code, 3, run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.entities.users.rejected, 1);
  assert.equal(doc.entities.members.blocked, 1);
  assert.equal(doc.entities.messages.blocked, 11);
  assert.deepEqual(bobsMessages(sb), []);
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.equal(status.migration.blockedParents[0].reason, 'ERR_EXCEPTION');
});

// ---- a parent missing from the export (no record of it, no map, no details object) holds like one not in

const g9Message = (sb) => sb.records().messages.m12;

test('validate: one line per missing parent, at its first child, with the count it holds back', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, { missing: true });
  const text = await runCli(['validate'], { cwd: dir });
  assert.equal(text.code, 3, text.stderr);
  const lines = text.stdout.split('\n').map((l) => l.trim());
  assert.ok(
    lines.includes(
      'members.ndjson:2: member g1_member_bob: uid: user bob is not in the export: ' +
        'holds back 1 member and 11 messages (first here) [ref.member.user]',
    ),
    text.stdout,
  );
  assert.ok(
    lines.includes(
      'messages.ndjson:13: message m12: receiver: group g9 is not in the export: ' +
        'holds back 1 message (first here) [ref.message.receiver]',
    ),
    text.stdout,
  );
  const doc = JSON.parse((await runCli(['validate', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(
    doc.problems.map((p) => `${p.file}:${p.line} ${p.entity} ${p.id} ${p.field} ${p.rule}`),
    [
      'members.ndjson:2 members g1_member_bob uid ref.member.user',
      'messages.ndjson:13 messages m12 receiver ref.message.receiver',
    ],
    "bob's 11 messages are not listed one by one",
  );
  assert.equal(doc.errorCount, 2);
});

test('import: children of a missing parent are blocked, not rejected, and stay held while it is missing', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, { missing: true });
  const first = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(first.code, 3, first.stderr);
  const doc = JSON.parse(first.stdout);
  assert.equal(doc.entities.members.blocked, 1);
  assert.equal(doc.entities.messages.blocked, 12);
  assert.equal(doc.entities.messages.imported, 1);
  assert.equal(doc.entities.messages.rejected, 0);
  assert.equal(doc.totals.unsent, 0, 'every record read is accounted for');
  assert.deepEqual(bobsMessages(sb), []);
  assert.deepEqual(bobsMembership(sb), []);
  assert.equal(g9Message(sb), undefined);
  const rejects = await readFile(path.join(dir, 'migrate-rejects.ndjson'), 'utf8').catch(() => '');
  assert.equal(rejects, '', 'no child is written to the rejects file');
  assert.match(doc.migration.statusLine, /13 records blocked by a user or group not in/);

  const requests = sb.stats().requests;
  const again = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(again.code, 3, again.stderr);
  assert.equal(JSON.parse(again.stdout).entities.messages.blocked, 12, 'held across runs, from the checkpoint');
  assert.equal(sb.stats().requests, requests, 'nothing is sent while bob and g9 are missing');
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(
    status.migration.blockedParents.map((p) => [p.key, `${p.file}:${p.line}`, p.reason, p.held]),
    [
      ['users:bob', 'members.ndjson:2', 'missing', { members: 1, messages: 11 }],
      ['groups:g9', 'messages.ndjson:13', 'missing', { members: 0, messages: 1 }],
    ],
  );
  const text = (await runCli(['status'], { cwd: dir })).stdout;
  assert.match(text, /members\.ndjson:2: user bob, not in the export \(named first here\), holds back 1 member and 11/);
  const md = (await runCli(['report', '--format', 'md', '--out', '-'], { cwd: dir })).stdout;
  assert.match(md, /`messages\.ndjson:13` group g9, not in the export \(named first here\), holds back 1 message/);

  // m12 taken out of the export (the file shrank: read again from its start): no record names g9 now.
  const messages = path.join(dir, 'messages.ndjson');
  const kept = (await readFile(messages, 'utf8')).split('\n').slice(0, 12);
  await writeFile(messages, `${kept.join('\n')}\n`);
  const third = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(JSON.parse(third.stdout).entities.messages.blocked, 11, third.stderr);
  const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
  assert.deepEqual(Object.keys(checkpoint.blocked), ['users:bob'], 'a missing id no record names leaves the table');
});

test('an import after the missing user and group are added sends what they held back, once each', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, { missing: true });
  await runCli(['import'], { cwd: dir });
  await appendFile(path.join(dir, 'users.ndjson'), `${JSON.stringify({ uid: 'bob', name: 'Bob' })}\n`);
  await appendFile(path.join(dir, 'groups.ndjson'), `${JSON.stringify({ guid: 'g9', name: 'G9', type: 'public' })}\n`);
  const fixed = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(fixed.code, 0, fixed.stderr);
  const doc = JSON.parse(fixed.stdout);
  assert.equal(doc.entities.messages.imported, 12);
  assert.equal(doc.entities.members.imported, 1);
  assert.equal(doc.entities.messages.blocked, 0);
  assert.equal(doc.entities.members.blocked, 0);
  assert.equal(bobsMessages(sb).length, 11);
  assert.equal(bobsMembership(sb).length, 1);
  assert.ok(g9Message(sb));
  assert.match(doc.migration.statusLine, /^Complete/);
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(status.migration.blockedParents, []);

  const logged = (await readNdjson(path.join(dir, '.migrate-checkpoint.imported.ndjson')))
    .filter((l) => l.entity !== undefined) // not the batches' write-ahead and answered lines
    .map((l) => l.id);
  assert.equal(logged.length, new Set(logged).size, 'each record sent once');
  const requests = sb.stats().requests;
  const after = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(after.code, 0, after.stderr);
  assert.equal(sb.stats().requests, requests, 'nothing is sent twice');
});

test('a userMap line added later for the missing user sends what it held back, as the app user', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, { missing: true });
  await runCli(['import'], { cwd: dir });
  assert.equal(bobsMessages(sb).length, 0);
  // bob is the app's bob-prod: the map line comes after the first import, which held his records.
  await writeFile(path.join(dir, 'user-map.csv'), 'from,to\nbob,bob-prod\n');
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  await writeConfig(dir, { ...config, userMap: 'user-map.csv' });
  const mapped = await runCli(['import', '--json'], { cwd: dir });
  const doc = JSON.parse(mapped.stdout);
  assert.equal(doc.entities.messages.imported, 11, mapped.stderr);
  assert.equal(doc.entities.members.imported, 1);
  assert.equal(doc.entities.members.blocked, 0);
  const senders = bobsMessages(sb).map((id) => sb.records().messages[id].sender);
  assert.deepEqual([...new Set(senders)], ['bob-prod']);
  assert.equal(senders.length, 11);
  assert.equal(Object.values(sb.records().members).filter((m) => m.uid === 'bob-prod').length, 1);
});

test('a missing id named by many records is one entry; distinct missing ids are bounded', () => {
  const NOW = 1_700_000_000;
  /** @returns {import('../../dist/entities/types.js').MappedRecord} */
  const record = (entity, payload, id, i) => ({
    entity,
    payload,
    id,
    source: {},
    file: `${entity}.ndjson`,
    line: i + 1,
    ordinal: i,
    problems: [],
  });
  const message = (i, sender) =>
    record('messages', JSON.parse(messageLine(i, { sender, receiverType: 'user', receiver: 'alice' })), `m${i}`, i);
  /** @type {Set<import('../../dist/entities/types.js').EntityName>} */
  const configured = new Set(['users', 'messages']);
  const index = new ExportIndex({
    configured,
    nowSec: NOW,
    messageIds: 'none',
    blockedBefore: new Set(['users:late']),
  });
  index.check(record('users', { uid: 'alice', name: 'A' }, 'alice', 0));
  for (let i = 0; i < 50_000; i++) assert.equal(index.check(message(i, 'ghost')).length, 0);
  assert.equal(index.blocked.list().length, 1);
  assert.deepEqual(index.blocked.list()[0].firstChild, {
    entity: 'messages',
    id: 'm0',
    rule: 'ref.message.sender',
    field: 'sender',
  });
  for (let i = 1; i < MAX_MISSING_PARENTS; i++) assert.equal(index.check(message(i, `ghost${i}`)).length, 0);
  assert.equal(index.blocked.list().length, MAX_MISSING_PARENTS);
  // Past the bound each further child is its own reject, as before holds existed.
  const over = message(1, 'one-too-many');
  assert.deepEqual(
    index.check(over).map((p) => p.rule),
    ['ref.message.sender'],
  );
  assert.match(index.check(message(2, 'one-too-many'))[0].message, /over 10,000 users and groups are missing/);
  assert.equal(over.blockedBy, undefined);
  // One an earlier run held stays held: its children were acknowledged unsent.
  const late = message(3, 'late');
  assert.equal(index.check(late).length, 0);
  assert.equal(late.blockedBy?.id, 'late');
  assert.equal(index.blocked.list().length, MAX_MISSING_PARENTS + 1);
});
