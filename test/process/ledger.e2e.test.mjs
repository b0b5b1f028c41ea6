// One migration, one ledger (issue 24): a whole rehearsal through the CLI against the sandbox, and
// every command's word on it agrees. The sandbox's own counters are the truth for requests.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readNdjson, runCli, sandbox, tempDir, writeConfig, messageLine as message } from '../helpers.mjs';

const ndjson = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** Users (one without a name, one id twice), a group, its members and messages. */
async function rehearsal(sb) {
  const dir = await tempDir();
  const users = [
    { uid: 'alice', name: 'Alice' },
    { uid: 'bob', name: 'Bob' },
    { uid: 'dave' },
    { uid: 'alice', name: 'Alice Again' },
  ];
  await writeFile(path.join(dir, 'users.ndjson'), ndjson(users));
  await writeFile(path.join(dir, 'groups.ndjson'), ndjson([{ guid: 'g1', name: 'G', type: 'public' }]));
  await writeFile(
    path.join(dir, 'members.ndjson'),
    ndjson([
      { guid: 'g1', uid: 'alice' },
      { guid: 'g1', uid: 'bob' },
    ]),
  );
  const messages = [0, 1, 2, 3].map((i) => message(i, { sender: i % 2 ? 'bob' : 'alice' }));
  await writeFile(path.join(dir, 'messages.ndjson'), `${messages.join('\n')}\n`);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    checkpoint: 'state/ckpt.json',
    retentionDays: 0,
    sources: {
      users: { path: 'users.ndjson' },
      groups: { path: 'groups.ndjson' },
      members: { path: 'members.ndjson' },
      messages: { path: 'messages.ndjson' },
    },
  });
  return dir;
}

const json = (run) => {
  assert.ok(run.stdout.trim().startsWith('{'), `${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout);
};
const status = async (dir) => json(await runCli(['status', '--json'], { cwd: dir })).migration;
const reportMd = async (dir) => (await runCli(['report', '--format', 'md', '--out', '-'], { cwd: dir })).stdout;

test('a rehearsal: import, replay (one fixed, one given up), verify --repair, report, undo: one story', async (t) => {
  // m2 is answered success but not stored the first time: what verify --repair is there to send again.
  const sb = await sandbox({ faults: { losePattern: '^m2$' } });
  t.after(() => sb.close());
  const dir = await rehearsal(sb);
  const rejectsFile = path.join(dir, 'migrate-rejects.ndjson');

  const before = await status(dir);
  assert.deepEqual(before, { state: 'not-started', statusLine: 'Not started: no import has run yet.' });
  const first = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(first.code, 3, first.stderr);
  assert.deepEqual((await readNdjson(rejectsFile)).map((r) => `${r.id} ${r.code}`).sort(), [
    'alice id.duplicate',
    'dave user.name.required',
  ]);
  assert.match(json(first).migration.statusLine, /^Not complete: 2 open rejects\.$/);

  // dave is fixed in the rejects file (the export still lacks his name); the second alice is given up.
  const edited = (await readNdjson(rejectsFile))
    .filter((r) => r.code !== 'id.duplicate')
    .map((r) => ({ ...r, record: { ...r.record, name: 'Dave' } }));
  await writeFile(rejectsFile, ndjson(edited));
  const replay = await runCli(['replay'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stderr);

  let ledger = await status(dir);
  assert.equal(ledger.total.notYetSent, 0, 'the given-up record is accounted for');
  assert.equal(ledger.total.dropped, 1);
  assert.equal(ledger.entities.users.replayed, 1);
  assert.equal(ledger.state, 'complete', ledger.statusLine);

  // verify finds m2 missing and sends it again; dave, sent from the rejects file, is no extra.
  const repair = await runCli(['verify', '--repair', '--json'], { cwd: dir });
  assert.equal(repair.code, 0, repair.stderr);
  const verdict = json(repair);
  assert.equal(verdict.entities.users.extra, 0, 'the replayed user is not "on the service, not in the export"');
  assert.equal(verdict.entities.users.present, verdict.entities.users.expected);
  assert.equal(verdict.entities.users.expected, 3, 'alice, bob and dave');
  const text = await runCli(['verify'], { cwd: dir });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /OK: all 10 records of the export are on the service/);
  assert.match(text.stdout, /\nMigration: Complete: every record of the export is in, and the last verify found all/);

  ledger = await status(dir);
  assert.equal(ledger.entities.messages.repaired, 1);
  // The sandbox counts every request; its import requests are those that are no reads.
  const sends = sb.stats().requests - sb.stats().readRequests;
  assert.equal(ledger.traffic.requests, sends, "import + replay + repair: the sandbox's own count");
  assert.match(ledger.statusLine, /^Complete: every record of the export is in, and the last verify found all/);

  const md = await reportMd(dir);
  assert.match(md, /\*\*Complete: every record of the export is in, and the last verify found all/);
  assert.match(md, new RegExp(`; ${sends} requests, 0 answered 429, 0 retries\\.$`, 'm'));
  assert.match(md, /\| `id\.duplicate` \| 0 \| 0 \| 1 \|/, 'the given-up rule is listed as given up');
  assert.match(md, /\| given up \(dropped from the rejects file\) \| 1 \| 0 \| 0 \| 0 \| 1 \|/);

  // undo says how long it will take at the REST rate, then shows a phase per entity with its rate.
  const dry = await runCli(['undo', '--dry-run'], { cwd: dir });
  assert.match(dry.stdout, /10 delete requests: about [\d.]+s at 500 requests a minute \(restRequestsPerMinute\)/);
  const undo = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(undo.code, 0, undo.stderr);
  assert.match(undo.stderr, /\[messages\] finished after [\d.]+s: 4\/4 \(100%\), [\d.]+ rec\/s: deleted 4/);
  assert.match(undo.stderr, /\[users\] finished after [\d.]+s: 3\/3 \(100%\), [\d.]+ rec\/s: deleted 3/);
  ledger = await status(dir);
  assert.equal(ledger.state, 'undone');
  const gone = /^Undone: 4 messages, 2 members, 1 group and 3 users this migration created were deleted; nothing/;
  assert.match(ledger.statusLine, gone);
  const after = await reportMd(dir);
  assert.match(after, /\*\*Undone: 4 messages/);
  assert.doesNotMatch(after, /Complete/);
  assert.doesNotMatch(after, /No record was rejected/);
  const runs = await readNdjson(path.join(dir, 'state', 'ckpt.runs.ndjson'));
  const commands = runs.filter((l) => l.type === 'run-start').map((l) => l.command);
  assert.deepEqual(commands, ['import', 'replay', 'verify --repair', 'verify', 'undo']);
  const undoEnd = runs.findLast((l) => l.type === 'run-end');
  assert.deepEqual(undoEnd.deleted, { users: 3, groups: 1, members: 2, messages: 4 });
  // Every run samples its pace: undo's and verify's too (requests, latency, the limiter's rate).
  for (const command of ['verify', 'undo']) {
    const { run } = runs.find((l) => l.type === 'run-start' && l.command === command);
    assert.ok(
      runs.some((l) => l.type === 'sample' && l.run === run && l.requests > 0),
      `${command} sampled`,
    );
  }

  // The next import starts over, and says so.
  const again = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(again.code, 3, again.stderr);
  assert.equal(json(again).resumed, false);
  assert.notEqual((await status(dir)).state, 'undone');
});

test('import --fresh starts a new id log: ids find shows one "created" line per record', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await rehearsal(sb);
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  const fresh = await runCli(['import', '--fresh'], { cwd: dir });
  assert.equal(fresh.code, 3, fresh.stderr);
  assert.match(fresh.stderr, /--fresh: a new id log; the previous one is now .*ckpt\.imported\.ndjson\./);
  const lines = (await readNdjson(path.join(dir, 'state', 'ckpt.imported.ndjson'))).filter((l) => l.id === 'bob');
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.equal(lines[0].state, 'existing', 'the new migration found bob already there');
  const found = await runCli(['ids', 'find', 'bob'], { cwd: dir });
  assert.equal(found.stdout.match(/created/g), null, found.stdout);
  assert.ok((await readdir(path.join(dir, 'state'))).some((f) => f.startsWith('ckpt.imported.ndjson.')));
  const text = await readFile(path.join(dir, 'state', 'ckpt.json'), 'utf8');
  assert.doesNotMatch(text, /sk_test/);
});

test('attachments not carried hold their messages: exit 3, counted by reason; a later run carries them', async (t) => {
  const { startBucket, startFileServer, mediaMessage, AWS_ENV, BUCKET } = await import('../media-servers.mjs');
  const { writeGeneratedExport } = await import('../helpers.mjs');
  const sb = await sandbox();
  const bucket = await startBucket();
  const files = new Map([['/a.png', { bytes: Buffer.from('png bytes'), type: 'image/png' }]]);
  const fs = await startFileServer(files);
  t.after(() => Promise.all([sb.close(), bucket.close(), fs.close()]));
  const dir = await tempDir('cm-media-ledger-');
  const { sources } = await writeGeneratedExport(dir, { users: 2, groups: 1, membersPerGroup: 2, messages: 0 });
  const at = (file) => `http://127.0.0.1:${fs.port}${file}`;
  const messages = ['/a.png', '/late1.png', '/late2.png'].map((file, i) => mediaMessage(i, at(file), `f${i}.png`));
  await writeFile(path.join(dir, 'messages.ndjson'), ndjson(messages));
  const media = {
    bucket: BUCKET,
    endpoint: bucket.endpoint,
    forcePathStyle: true,
    publicBaseUrl: 'https://media.example.test',
    allowPrivateHosts: ['127.0.0.1'],
    hosts: { '127.0.0.1': {} },
  };
  await writeConfig(dir, { baseUrl: sb.url, requestsPerMinute: 6000, sources, checkpoint: 'state/ckpt.json', media });

  const first = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(first.code, 3, first.stderr);
  assert.equal(json(first).migration.mediaNotCarried, 2);
  assert.deepEqual(json(first).migration.mediaNotCarriedBy, { 'HTTP 404': 2 });
  assert.deepEqual(Object.keys(sb.records().messages).sort(), ['media0'], 'no message points at the old system');
  const ledger = await status(dir);
  assert.equal(ledger.statusLine, 'Not complete: 2 open rejects and 2 attachments not carried.');
  assert.deepEqual(
    ledger.media.examples.map((x) => `${x.file}:${x.line}`),
    ['messages.ndjson:2', 'messages.ndjson:3'],
  );
  const text = (await runCli(['status'], { cwd: dir })).stdout;
  assert.match(text, /attachments not carried \(their messages wait\): 2\n {2}2: HTTP 404/);
  const md = await reportMd(dir);
  assert.match(md, /### Attachments not carried: 2 \(their messages wait\)\n\n- 2: HTTP 404/);
  assert.match(md, /\| `media\.not-carried` \| 2 \|/);

  // The files are there now: the next run carries them and sends their messages.
  files.set('/late1.png', { bytes: Buffer.from('late one'), type: 'image/png' });
  files.set('/late2.png', { bytes: Buffer.from('late two'), type: 'image/png' });
  const second = await runCli(['import', '--json'], { cwd: dir, env: AWS_ENV });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(json(second).migration.mediaNotCarried, 0);
  assert.deepEqual(Object.keys(sb.records().messages).sort(), ['media0', 'media1', 'media2']);
  assert.match(sb.records().messages.media1.data.attachments[0].url, /^https:\/\/media\.example\.test\//);
  assert.equal((await status(dir)).state, 'complete');
});

test('undo stopped by Ctrl+C: exit 130 within 3 s, the ledger says how far it got; undo again finishes', async (t) => {
  const { spawnCli, collect, waitFor } = await import('../helpers.mjs');
  // Real time: the latency keeps deletes in flight for the Ctrl+C to land among them.
  const sb = await sandbox({ latencyMs: 100 });
  t.after(() => sb.close());
  const dir = await rehearsal(sb);
  assert.equal((await runCli(['import'], { cwd: dir })).code, 3);
  const child = spawnCli(['undo', '--yes', '--concurrency', '1'], { cwd: dir });
  const done = collect(child);
  const reads = sb.stats().readRequests;
  await waitFor(() => sb.stats().readRequests >= reads + 2, { timeoutMs: 30_000 });
  const signalledAt = Date.now();
  child.kill('SIGINT');
  const stopped = await done;
  assert.equal(stopped.code, 130, stopped.stderr);
  assert.ok(Date.now() - signalledAt < 3000, `exited ${Date.now() - signalledAt} ms after the signal`);
  const ledger = await status(dir);
  assert.equal(ledger.state, 'undoing', ledger.statusLine);
  assert.match(ledger.statusLine, /^Undo under way: \d+ deletes? of 9 answered; run undo --yes again to finish\.$/);
  const runs = await readNdjson(path.join(dir, 'state', 'ckpt.runs.ndjson'));
  assert.equal(runs.findLast((l) => l.type === 'interrupt').signal, 'SIGINT');
  assert.equal(runs.findLast((l) => l.type === 'run-end').status, 'interrupted');
  const again = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal((await status(dir)).state, 'undone');
  assert.deepEqual(Object.keys(sb.records().users), []);
});
