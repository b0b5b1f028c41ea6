// undo (issue 17, point 3): a trial import taken back. The sandbox holds exactly what it held before
// (records that were there already stay), and an import afterwards brings everything back.
import assert from 'node:assert/strict';
import { access, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { collect, runCli, sandbox, spawnCli, tempDir, waitFor, writeConfig } from '../helpers.mjs';

const ndjson = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
const msg = (i, sender, receiverType, receiver, muid = `m${i}`) => ({
  muid,
  sender,
  receiverType,
  receiver,
  sentAt: 1_700_000_000 + i,
  category: 'message',
  type: 'text',
  data: { text: `hi ${i}` },
});
const SOURCES = {
  users: { path: 'users.ndjson' },
  groups: { path: 'groups.ndjson' },
  members: { path: 'members.ndjson' },
  messages: { path: 'messages.ndjson' },
};

/** Writes four files and a config in a new folder. */
async function workspace(sb, { users, groups, members, messages }, config = {}) {
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.ndjson'), ndjson(users));
  await writeFile(path.join(dir, 'groups.ndjson'), ndjson(groups));
  await writeFile(path.join(dir, 'members.ndjson'), ndjson(members));
  await writeFile(path.join(dir, 'messages.ndjson'), ndjson(messages));
  // The deletes are not what these tests time: the REST limit out of the way, as the import's.
  const rates = { requestsPerMinute: 1e9, restRequestsPerMinute: 1e9 };
  await writeConfig(dir, { baseUrl: sb.url, ...rates, sources: SOURCES, ...config });
  return dir;
}

/** What the app held before the migration: its own user, group, member and message. */
async function seed(sb) {
  const dir = await workspace(sb, {
    users: [{ uid: 'old', name: 'Old' }],
    groups: [{ guid: 'lobby', name: 'Lobby', type: 'public' }],
    members: [{ guid: 'lobby', uid: 'old' }],
    messages: [msg(-1, 'old', 'group', 'lobby', 'old-message')],
  });
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
}

/** The export: new records, and some the app has already (a user, a group, a member, a message). */
function exportRecords(n = 12) {
  return {
    users: [{ uid: 'old', name: 'Old' }, ...['ann', 'ben', 'cy'].map((uid) => ({ uid, name: uid }))],
    groups: [
      { guid: 'lobby', name: 'Lobby', type: 'public' },
      { guid: 'team', name: 'Team', type: 'public' },
    ],
    members: [
      { guid: 'lobby', uid: 'old' },
      { guid: 'lobby', uid: 'ann' },
      { guid: 'team', uid: 'ann' },
      { guid: 'team', uid: 'ben' },
    ],
    messages: [
      msg(-1, 'old', 'group', 'lobby', 'old-message'),
      ...Array.from({ length: n }, (_, i) =>
        msg(i, i % 2 ? 'ann' : 'ben', i % 3 ? 'group' : 'user', i % 3 ? 'team' : 'cy'),
      ),
    ],
  };
}

const snapshot = (sb) => JSON.parse(JSON.stringify(sb.records()));

test('import, then undo --yes: the sandbox is back to what it held; import brings everything back', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  await seed(sb);
  const before = snapshot(sb);
  const dir = await workspace(sb, exportRecords());
  const first = await runCli(['import'], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const imported = snapshot(sb);
  assert.notDeepEqual(imported, before);

  const refused = await runCli(['undo'], { cwd: dir });
  assert.equal(refused.code, 2, 'no --yes: refused');
  assert.match(refused.stdout, /app \(no appId\) at 127\.0\.0\.1:\d+/);
  assert.match(refused.stdout, /will delete 12 messages \(permanently\), 3 members, 1 group and 3 users/);
  assert.match(refused.stderr, /UNDO_NEEDS_YES/);
  const dry = await runCli(['undo', '--dry-run', '--json'], { cwd: dir });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout).counts, { users: 3, groups: 1, members: 3, messages: 12 });
  assert.deepEqual(snapshot(sb), imported, 'neither deleted anything');

  const undo = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(snapshot(sb), before, 'exactly what it held before, the records already there included');
  // The migration's checkpoint is set aside; the ledger left in its place says what was undone.
  const aside = (await readdir(dir)).filter((f) => f.startsWith('.migrate-checkpoint.json.undone-'));
  assert.equal(aside.length, 1, 'the checkpoint is set aside');
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.equal(status.migration.state, 'undone');
  assert.deepEqual(status.files, []);

  const again = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).resumed, false, 'the import started over');
  const back = snapshot(sb);
  // The service gives a message a new id of its own when it is imported again: compare without it.
  const withoutIds = (records) => ({
    ...records,
    messages: Object.fromEntries(Object.entries(records.messages).map(([k, { id: _, ...m }]) => [k, m])),
  });
  assert.deepEqual(withoutIds(back), withoutIds(imported));
});

test('undo killed midway resumes from its saved progress and finishes the job', async (t) => {
  // Real time: the latency keeps deletes going for the SIGKILL to land mid-way.
  const sb = await sandbox({ latencyMs: 10 });
  t.after(() => sb.close());
  await seed(sb);
  const before = snapshot(sb);
  const dir = await workspace(sb, exportRecords(300), { concurrency: 2 });
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
  const messagesIn = () => Object.keys(sb.records().messages).length;
  const child = spawnCli(['undo', '--yes'], { cwd: dir });
  const done = collect(child);
  await waitFor(() => messagesIn() <= 200, { everyMs: 5, what: 'a third of the messages deleted' });
  child.kill('SIGKILL');
  assert.equal((await done).signal, 'SIGKILL');
  assert.ok(messagesIn() > 1, 'killed before the end');
  await access(path.join(dir, '.migrate-checkpoint.undo.json'));
  const resumed = await runCli(['undo', '--yes', '--json'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  // It went on from its saved progress: at most the group in flight at the kill is asked again.
  assert.ok(JSON.parse(resumed.stdout).notFound <= 2, resumed.stdout);
  assert.deepEqual(snapshot(sb), before);
});

test('undo keeps to the rate the service states in its rate headers: deletes are standard operations', async (t) => {
  // 240 reads and deletes a minute, said in X-RateLimit-* headers; the config allows the import 1e9.
  const sb = await sandbox({ readRequestsPerMinute: 240, rateHeaders: 'compact' });
  t.after(() => sb.close());
  // The default REST limit (500 a minute), which the headers' 240 must lower.
  const dir = await workspace(sb, exportRecords(), { restRequestsPerMinute: 500 });
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
  // The sandbox's own count of deletes, watched from this process (the sandbox runs in it).
  const arrivals = [];
  let seen = sb.stats().readRequests;
  const watch = setInterval(() => {
    for (const n = sb.stats().readRequests; seen < n; seen++) arrivals.push(Date.now());
  }, 5);
  const run = await runCli(['undo', '--yes'], { cwd: dir });
  clearInterval(watch);
  assert.equal(run.code, 0, run.stderr);
  const n = arrivals.length;
  assert.ok(n >= 19, `${n} deletes`);
  // One delete every 0.25 s once the first answer told the rate (the default, 500 a minute, is 0.12 s).
  const span = arrivals[n - 1] - arrivals[0];
  assert.ok(span >= (n - 2) * 225, `${n} deletes in ${span} ms`);
  assert.equal(sb.stats().rateLimited, 0);
});
