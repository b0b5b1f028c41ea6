// verify's options and report shapes, in-process against the sandbox: --json, --sample, --entities,
// different content, extras, a wrong key, validate's retention notice, and the service's read pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from '../helpers.mjs';
import { importRun, verifySandbox, verify, verifyWorkspace } from '../verify-helpers.mjs';

test('--json: one document with per-entity figures, located records and the request count', async (t) => {
  const sb = await verifySandbox(t, { faults: { losePattern: '^(user2|msg5)$' } });
  // The tool's default window (the helpers' workspaces set it unlimited otherwise).
  const ws = await verifyWorkspace(sb.url, {}, { retentionDays: undefined });
  assert.equal((await importRun(ws.dir)).code, 0);
  const run = await verify(ws.dir, ['--json']);
  assert.equal(run.code, 3, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.ok, false);
  assert.deepEqual(Object.keys(result.entities), ['users', 'groups', 'members', 'messages']);
  const { users, messages } = result.entities;
  assert.deepEqual([users.expected, users.present, users.missing, users.different, users.extra], [12, 11, 1, 0, 0]);
  assert.deepEqual(users.missingRecords, [{ id: 'user2', file: 'users.ndjson', line: 3 }]);
  assert.deepEqual(messages.missingRecords, [{ id: 'msg5', file: 'messages.ndjson', line: 6 }]);
  assert.equal(result.retentionDays, 180);
  assert.ok(result.requests >= 4 + 3 * 2, `${result.requests} read requests`);
  assert.equal(typeof result.elapsedMs, 'number');
});

test('--entities and --sample narrow the check; --sample counts no extras', async (t) => {
  const sb = await verifySandbox(t, { faults: { losePattern: '^user2$' } });
  const ws = await verifyWorkspace(sb.url);
  assert.equal((await importRun(ws.dir)).code, 0);
  const only = await verify(ws.dir, ['--entities', 'groups,messages', '--json']);
  assert.equal(only.code, 0, only.stderr);
  assert.deepEqual(Object.keys(JSON.parse(only.stdout).entities), ['groups', 'messages']);

  const sample = await verify(ws.dir, ['--entities', 'messages', '--sample', '5', '--json']);
  assert.equal(sample.code, 0, sample.stderr);
  const result = JSON.parse(sample.stdout);
  assert.equal(result.sample, 5);
  assert.deepEqual([result.entities.messages.expected, result.entities.messages.present], [5, 5]);
  assert.equal(result.entities.messages.extra, 0);

  const bad = await verify(ws.dir, ['--entities', 'users,posts']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /posts is not an entity/);
});

test('different content and extras: fields named with both values; records only on the service counted', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url);
  assert.equal((await importRun(ws.dir)).code, 0);
  // The export changed after the import: user1 renamed, msg4's text edited, user11 and msg59 gone.
  const edit = async (file, change) => {
    const full = path.join(ws.dir, file);
    await writeFile(full, change(await readFile(full, 'utf8')));
  };
  await edit('users.ndjson', (s) => s.replace('"User 1"', '"User One"').replace(/.*"user11".*\n/, ''));
  await edit('messages.ndjson', (s) => s.replace('"hello 4"', '"hello four"').replace(/.*"msg59".*\n/, ''));
  await edit('members.ndjson', (s) => s.replace(/.*"user11".*\n/, ''));
  const run = await verify(ws.dir);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stdout, /^ {2}users\.ndjson:2: user user1: name: User One in the export, User 1 on the service$/m);
  assert.match(run.stdout, /^ {2}messages\.ndjson:5: message msg4: text: hello four in the export, hello 4 on/m);
  assert.match(run.stdout, /^ {2}users: 1 \(user11\)$/m);
  // user11's messages now name a user the export lacks: the import would refuse them, so they are not
  // expected, and the service's copies count as extras with msg59.
  assert.match(run.stdout, /^ {2}messages: 5 \(msg11, msg23, msg35, msg47, msg59\)$/m);
  assert.match(run.stdout, /^note: 4 messages of the export the import does not send \(refused by its checks/m);
  assert.match(run.stdout, /^FAILED: 0 missing, 2 different/m);
});

test('a wrong key stops verify at its first read, exit 1, before the export is read', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url);
  const run = await runCli(['verify'], { cwd: ws.dir, apiKey: 'not-the-key-at-all' });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /refused the API key .*\[REMOTE_AUTH\]/);
  assert.doesNotMatch(run.stderr, /reading the export/);
  assert.doesNotMatch(run.stderr + run.stdout, /not-the-key-at-all/);
});

test('validate counts the messages older than retentionDays and says what to do', async () => {
  // Message i is i * 12 + 1 days old: from i = 15 (181 days) on, beyond the default 180-day window.
  const { dir } = await verifyWorkspace(
    'http://127.0.0.1:9',
    { ageDays: (i) => i * 12 + 1 },
    { retentionDays: undefined },
  );
  const run = await runCli(['validate'], { cwd: dir });
  // The default window, which nobody set, leaves messages out: exit 3 until retentionDays is set.
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stdout, /^note: 45 messages sent before \S+ are beyond the 180-day retention window/m);
  assert.match(run.stdout, /to send them: .*retentionDays/);
  const json = await runCli(['validate', '--json', '--retention-days', '365'], { cwd: dir });
  assert.equal(JSON.parse(json.stdout).beyondRetention, 29);
  assert.match(json.stderr, /warning: 29 messages were sent before \S+, beyond the service's 365-day retention/);
  const none = await runCli(['validate', '--retention-days', '0'], { cwd: dir });
  assert.doesNotMatch(none.stderr + none.stdout, /retention/);
});

test('pages: 2,500 messages over three cursor pages, 1,200 users over two pages (total is 0)', async (t) => {
  const sb = await verifySandbox(t, { faults: { losePattern: '^(msg1999|msg2400)$' } });
  const ws = await verifyWorkspace(sb.url, { messages: 2500, users: 1200, ageDays: (i) => i / 100 });
  assert.equal((await importRun(ws.dir)).code, 0);
  const run = await verify(ws.dir, ['--json']);
  assert.equal(run.code, 3, run.stderr);
  const { users, messages } = JSON.parse(run.stdout).entities;
  assert.deepEqual([users.expected, users.present, users.extra], [1200, 1200, 0]);
  assert.deepEqual([messages.expected, messages.present, messages.extra], [2500, 2498, 0]);
  assert.deepEqual(
    messages.missingRecords.map((m) => m.id),
    ['msg1999', 'msg2400'],
  );
});
