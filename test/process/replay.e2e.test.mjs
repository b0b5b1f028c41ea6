// replay (issue 17, point 1): the rejects file's records, as the user edited them, are sent again through
// the import's path; what gets in is closed, a second replay sends nothing, a deleted line is dropped,
// and a SIGKILL mid-replay loses and doubles nothing.
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  collect,
  readNdjson,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
  messageLine as message,
} from '../helpers.mjs';

/** Rewrites the rejects file line by line: `edit` returns the line's new object, or null to delete it. */
async function editRejects(file, edit) {
  const lines = await readNdjson(file);
  const kept = lines.map(edit).filter((l) => l !== null);
  await writeFile(file, kept.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

async function workspace(sb, { users, messages, config = {} }) {
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.ndjson'), `${users.join('\n')}\n`);
  await writeFile(path.join(dir, 'groups.ndjson'), `${JSON.stringify({ guid: 'g1', name: 'G', type: 'public' })}\n`);
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.join('\n')}\n`);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
    ...config,
  });
  return dir;
}

test('replay: fixed rejects and export get in, a deleted line is dropped, a second replay sends nothing', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const users = [{ uid: 'alice', name: 'A' }, { uid: 'bob', name: 'B' }, { uid: 'dave' }].map((u) => JSON.stringify(u));
  const messages = [0, 1, 2].map((i) => message(i));
  // m4's sender is missing from the export, and its text empty: a reject for its text, not held for carol.
  messages.push(message(3, { data: { text: '   ' } }), message(4, { sender: 'carol', data: { text: ' ' } }));
  messages.push(message(5, { data: { text: '' } }));
  const dir = await workspace(sb, { users, messages });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');

  const first = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(first.code, 3, first.stderr);
  const codes = (await readNdjson(rejectsFile)).map((r) => `${r.id} ${r.code}`).sort();
  assert.deepEqual(codes, [
    'dave user.name.required',
    'm3 message.text.empty',
    'm4 message.text.empty',
    'm5 message.text.empty',
  ]);
  assert.equal(JSON.parse(first.stdout).entities.messages.blocked, 0, 'm4 is rejected for its own line');

  // Fix the rejects file (dave's name, m3's and m4's text), delete m5's line; fix the export (carol).
  await editRejects(rejectsFile, (r) => {
    if (r.id === 'dave') return { ...r, record: { ...r.record, name: 'Dave' } };
    if (r.id === 'm3' || r.id === 'm4') return { ...r, record: { ...r.record, data: { text: 'fixed' } } };
    return r.id === 'm5' ? null : r;
  });
  const early = JSON.parse((await runCli(['replay', '--dry-run', '--json'], { cwd: dir })).stdout);
  assert.deepEqual(
    early.failing.map((f) => `${f.id} ${f.problem.rule}`),
    ['m4 ref.message.sender'],
    'the dry run checks references against the export: a replayed line naming a missing user stays a reject',
  );
  await appendFile(path.join(dir, 'users.ndjson'), `${JSON.stringify({ uid: 'carol', name: 'C' })}\n`);

  const dry = await runCli(['replay', '--dry-run', '--json'], { cwd: dir });
  assert.equal(dry.code, 0, dry.stderr);
  const dryDoc = JSON.parse(dry.stdout);
  assert.equal(dryDoc.wouldSend, 3);
  assert.equal(sb.records().users.dave, undefined, '--dry-run sends nothing');

  const replay = await runCli(['replay', '--json'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stderr);
  const doc = JSON.parse(replay.stdout);
  assert.equal(doc.replay.openBefore, 4);
  assert.equal(doc.replay.gotIn, 3);
  assert.equal(doc.replay.dropped, 1);
  assert.equal(doc.replay.stillOpen, 0);
  const held = sb.records();
  assert.equal(held.users.dave.name, 'Dave');
  assert.ok(held.users.carol);
  assert.equal(held.messages.m3.data.text, 'fixed');
  assert.equal(held.messages.m4.sender, 'carol');
  assert.equal(held.messages.m5, undefined, 'a deleted line is not sent');

  const requests = sb.stats().requests;
  const again = await runCli(['replay', '--json'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).replay.sent, 0);
  assert.equal(sb.stats().requests, requests, 'a second replay sends nothing');
  const imported = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(imported.code, 0, `an import after the replay finds nothing open: ${imported.stdout}`);

  const status = await runCli(['status', '--json'], { cwd: dir });
  const s = JSON.parse(status.stdout);
  assert.deepEqual(s.openRejects, {});
  assert.equal(s.totals.users.resolved, 1);
  assert.equal(s.totals.messages.resolved, 2);
  assert.equal(s.totals.messages.dropped, 1);
});

test('replay: what still fails stays open with its rule, grouped under "fix the data"', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, {
    users: [JSON.stringify({ uid: 'alice', name: 'A' })],
    messages: [message(0, { data: { text: ' ' } }), message(1, { data: { text: ' ' } })],
  });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  await editRejects(rejectsFile, (r) => (r.id === 'm0' ? { ...r, record: { ...r.record, data: { text: 'ok' } } } : r));
  const r = await runCli(['replay'], { cwd: dir });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /Replay: 2 records open before, 1 sent, 1 got in, 0 dropped .*1 still open/);
  assert.match(r.stdout, /fix the data: {3}1 \(message\.text\.empty 1\)/);
  assert.ok(sb.records().messages.m0);
  assert.equal(sb.records().messages.m1, undefined);
});

test('replay: SIGKILL mid-replay, then replay again: every fixed record in once, none lost', async (t) => {
  // Real time: the latency keeps the replay going for the SIGKILL to land mid-way.
  const sb = await sandbox({ latencyMs: 20 });
  t.after(() => sb.close());
  const n = 400;
  const messages = Array.from({ length: n }, (_, i) => message(i, { data: { text: '' } }));
  const dir = await workspace(sb, {
    users: [JSON.stringify({ uid: 'alice', name: 'A' })],
    messages,
    config: { batchSize: 10, concurrency: 2, checkpointIntervalMs: 0 },
  });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  assert.equal((await readNdjson(rejectsFile)).length, n);
  await editRejects(rejectsFile, (r) => ({ ...r, record: { ...r.record, data: { text: `fixed ${r.id}` } } }));

  const stored = () => sb.stats().perEntity.messages.stored;
  const child = spawnCli(['replay'], { cwd: dir });
  const done = collect(child);
  await waitFor(() => stored() >= n / 3, { everyMs: 5, what: 'a third of the fixed messages stored' });
  child.kill('SIGKILL');
  const killed = await done;
  assert.equal(killed.signal, 'SIGKILL', 'the replay was still running when killed');
  assert.ok(stored() < n, 'killed before the end');

  const resumed = await runCli(['replay', '--json'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).replay.stillOpen, 0);
  const stats = sb.stats().perEntity.messages;
  assert.equal(stats.stored, n, 'every fixed message is in');
  assert.equal(Object.keys(sb.records().messages).length, n, 'none twice');
  for (let i = 0; i < n; i++) assert.equal(sb.records().messages[`m${i}`].data.text, `fixed m${i}`);
  const again = await runCli(['replay', '--json'], { cwd: dir });
  assert.equal(JSON.parse(again.stdout).replay.sent, 0);
  const checkpoint = JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
  assert.equal(checkpoint.totals.messages.resolved, n, 'each open reject closed once');
});

test('--fresh starts the rejects file anew (the old one renamed aside); other sources point to replay', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await workspace(sb, {
    users: [JSON.stringify({ uid: 'alice', name: 'A' })],
    messages: [message(0, { data: { text: ' ' } })],
  });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  const fresh = await runCli(['import', '--fresh'], { cwd: dir });
  assert.equal(fresh.code, 3, fresh.stderr);
  assert.equal((await readNdjson(rejectsFile)).length, 1, 'the record is listed once, not twice');
  assert.match(fresh.stderr, /--fresh: a new rejects file; the previous one is now .*migrate-rejects\.ndjson\.\d{4}-/);

  await writeFile(path.join(dir, 'fix.ndjson'), `${message(0)}\n`);
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  config.sources.messages.path = ['messages.ndjson', 'fix.ndjson'];
  await writeConfig(dir, config);
  const refused = await runCli(['import'], { cwd: dir });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /CHECKPOINT_OTHER_SOURCES[\s\S]*chat-migrate replay/);
});

test('replay after the rejects file was edited as documented warns of no interrupted run', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const users = [JSON.stringify({ uid: 'alice', name: 'A' })];
  const messages = [message(0), message(1, { data: { text: ' ' } }), message(2, { data: { text: '' } })];
  const dir = await workspace(sb, { users, messages });
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  // A fix longer than the line it replaces: the file grows and its bytes before the end change.
  await editRejects(rejectsFile, (r) => ({
    ...r,
    record: { ...r.record, data: { text: `fixed ${r.id}, at length` } },
  }));
  const replay = await runCli(['replay'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stderr);
  assert.doesNotMatch(`${replay.stdout}${replay.stderr}`, /interrupted run/);
  assert.equal(sb.records().messages.m2.data.text, 'fixed m2, at length');
});

test('verify after a replay: the record replayed in and what it held back are not "not expected"', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const users = [{ uid: 'alice', name: 'A' }, { uid: 'dave' }].map((u) => JSON.stringify(u));
  const messages = [message(0), message(1, { sender: 'dave' }), message(2, { data: { text: '' } })];
  const dir = await workspace(sb, { users, messages });
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  await editRejects(path.join(dir, 'migrate-rejects.ndjson'), (r) =>
    r.id === 'dave' ? { ...r, record: { ...r.record, name: 'Dave' } } : r,
  );
  assert.equal((await runCli(['replay'], { cwd: dir })).code, 3, 'm2 stays open');
  assert.ok(sb.records().messages.m1, 'what dave held back came in with him');
  const verify = await runCli(['verify'], { cwd: dir });
  assert.equal(verify.code, 0, verify.stderr);
  assert.match(verify.stdout, /note: 1 message of the export the import does not send/);
  assert.doesNotMatch(verify.stdout, /On the service, not in the export/);
  assert.doesNotMatch(verify.stdout, /\d+ users? of the export the import does not send/);
});
