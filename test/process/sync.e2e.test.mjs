// `sync` and `sync --final` as separate processes: the Sendbird fake (in this process) as the live
// source, the import sandbox as the service. Messages posted while sync runs arrive once; a sync killed
// with SIGKILL and started again loses and doubles nothing; the cutover exits 3 while the service lacks
// a record and 0 once it is across; the report draws the timeline.
// Build first: npm run build
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { lagAfter } from '../../dist/pipeline/sync/sync-lag.js';
import { startFake as startSourceFake } from '../fakes/helpers.mjs';
import { spawn } from 'node:child_process';
import {
  API_KEY,
  BIN,
  collect,
  readNdjson,
  ROOT,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
} from '../helpers.mjs';

const WORLD = { users: 6, channels: 3, messages: 60, seed: 11 };

/** @param {Omit<import('../fakes/dist/index.js').FakeServerOptions, 'source' | 'world'>} [options] */
const startFake = (t, options = {}) => startSourceFake(t, 'sendbird', { world: WORLD, ...options });

/** A folder whose config points at the import sandbox, with the state in `state/`. */
async function workspace(sb) {
  const dir = await tempDir('cm-sync-');
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 6000,
    restRequestsPerMinute: 6000,
    checkpoint: 'state/checkpoint.json',
    rejects: 'state/rejects.ndjson',
  });
  return dir;
}

// A second between rounds, on the wall clock: these syncs are processes (killed, or posted to while they
// run); sync's interval on a virtual clock is tested in-process (clock.test.mjs).
const syncArgs = (fake, extra = []) => [
  'sync',
  'sendbird',
  '--out',
  'state/export',
  '--source-base-url',
  fake.url,
  '--interval',
  '1',
  ...extra,
];

const syncCli = (dir, fake, extra) => spawnCli(syncArgs(fake, extra), { cwd: dir, env: fake.env });
const runSync = (dir, fake, extra) => collect(syncCli(dir, fake, extra));

/** The run log's `sync-round` lines. */
async function rounds(dir) {
  const lines = await readNdjson(path.join(dir, 'state', 'checkpoint.runs.ndjson')).catch(() => []);
  return lines.filter((l) => l.type === 'sync-round');
}

/** Every message the pull wrote, over every run folder: each id must be there once. */
async function pulledMessageIds(dir) {
  const root = path.join(dir, 'state', 'export');
  const ids = [];
  for (const entry of await readdir(root, { recursive: true })) {
    const file = path.join(root, entry);
    if (!/messages/i.test(entry) || !/\.(json|ndjson)$/.test(entry)) continue;
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/"message_id":\s*"?([^",}\s]+)/g)) ids.push(m[1]);
  }
  return ids;
}

/** The fake's messages, as its control route counts them. */
async function fakeMessages(fake) {
  const stats = await fake.call('GET', '/__fake/stats');
  return stats.messages;
}

/** Posts `n` messages to the fake, in its first channel, from one of that channel's members. */
async function postMessages(fake, n, text) {
  const world = await fake.call('GET', '/__fake/world');
  const channel = world.channels[0];
  const posted = [];
  for (let i = 0; i < n; i++) {
    // The first channel is public: every user of the world is in it.
    const body = { channelId: channel.id, senderId: 'user-0001', text: `${text} ${i}` };
    posted.push(await fake.call('POST', '/__fake/messages', body));
  }
  return posted;
}

const serviceMessages = (sb) => Object.keys(sb.records().messages).length;

test('messages posted to the source while sync runs all reach the service, once', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startFake(t);
  const dir = await workspace(sb);
  const child = syncCli(dir, fake);
  const done = collect(child);
  await waitFor(async () => (await rounds(dir)).length >= 1, { timeoutMs: 60_000, what: 'the first round' });
  // The preset sends a Sendbird message with two files as two messages: the service's own count.
  const before = serviceMessages(sb);
  assert.ok(before >= (await fakeMessages(fake)));
  await postMessages(fake, 5, 'while syncing');
  const total = await fakeMessages(fake);
  await waitFor(() => serviceMessages(sb) === before + 5, {
    timeoutMs: 60_000,
    what: 'the posted messages on the service',
  });
  // A round after them has verified them: the lag is back to 0 and nothing is left to cross.
  const across = Date.now();
  await waitFor(async () => (await rounds(dir)).some((r) => r.t > across && r.notAcross === 0), {
    timeoutMs: 60_000,
    what: 'a round that verified the 5',
  });
  child.kill('SIGTERM');
  const run = await done;
  assert.ok(run.code === 0 || run.code === 130, run.stderr);
  const lines = await rounds(dir);
  assert.equal(
    lines.reduce((n, r) => n + r.imported, 0) - lines[0].imported,
    5,
    'the rounds after the first imported the 5, and nothing else',
  );
  const last = lines.at(-1);
  assert.equal(last.lagMs, 0);
  assert.equal(last.newestPulledAt, last.newestVerifiedAt);
  assert.ok(Date.parse(last.newestPulledAt) >= Date.parse(lines[0].newestPulledAt));
  assert.match(run.stderr, /round \d+: imported 5, already there 0, rejected 0; verified \d+ of \d+; lag 0\.0 s/);
  // Once: the service stored each message once, and the pull wrote each once over all its folders.
  assert.equal(sb.stats().perEntity.messages.alreadyExists, 0);
  const ids = await pulledMessageIds(dir);
  assert.equal(ids.length, total);
  assert.equal(new Set(ids).size, total);
  // Secrets: the source's token never reaches the output or the state.
  for (const value of Object.values(fake.env)) {
    if (String(value).length < 8) continue;
    assert.equal(run.stdout.includes(value) || run.stderr.includes(value), false);
    const log = await readFile(path.join(dir, 'state', 'checkpoint.runs.ndjson'), 'utf8');
    assert.equal(log.includes(value), false);
  }
});

test('a sync killed with SIGKILL and started again loses and doubles nothing', async (t) => {
  // Real time: the latencies keep the first round's import going for the SIGKILL to land mid-way.
  const sb = await sandbox({ latencyMs: 30 });
  t.after(() => sb.close());
  const fake = await startFake(t, { latencyMs: 20 });
  const dir = await workspace(sb);
  const child = syncCli(dir, fake, ['--batch-size', '5', '--concurrency', '1']);
  const done = collect(child);
  // Killed mid-import of the first round: some messages sent, not all.
  await waitFor(() => sb.stats().perEntity.messages.stored >= 10, { timeoutMs: 60_000, what: 'messages sent' });
  child.kill('SIGKILL');
  await done;
  const sent = serviceMessages(sb);
  await postMessages(fake, 3, 'after the kill');
  const total = await fakeMessages(fake);
  const again = await runSync(dir, fake, ['--rounds', '1']);
  assert.equal(again.code, 0, again.stderr);
  assert.ok(serviceMessages(sb) > sent + 3, 'the rest of the first round and the 3 new ones');
  // Nothing lost: the cutover's full verify finds every record of the export on the service.
  const final = await runSync(dir, fake, ['--final']);
  assert.equal(final.code, 0, final.stderr);
  assert.match(final.stdout, /Cutover complete/);
  // Nothing doubled: the pull wrote each message once over its folders (the service keys by id).
  const ids = await pulledMessageIds(dir);
  assert.equal(ids.length, total, 'every message written once over the pull folders');
  assert.equal(new Set(ids).size, total);
  // Round numbers go on from the run log: the killed round wrote none.
  assert.deepEqual(
    (await rounds(dir)).map((r) => [r.round, r.final]),
    [
      [1, false],
      [2, true],
    ],
  );
});

test('sync --final exits 3 while the service lacks a record and 0 once it is across', async (t) => {
  // The service answers success for some messages and keeps none of them (each is lost once).
  const sb = await sandbox({ faults: { loseShare: 0.1 }, seed: 5 });
  t.after(() => sb.close());
  const fake = await startFake(t);
  const dir = await workspace(sb);
  const first = await runSync(dir, fake, ['--final']);
  const lost = sb.lost().messages.length;
  assert.ok(lost > 0, 'the fault lost some messages');
  assert.equal(first.code, 3, first.stderr);
  assert.match(first.stdout, /Migration: Cutover not complete: the last verify found \d+ records? missing/);
  assert.match(first.stdout, /verify --repair/);
  const status = await runCli(['status', '--checkpoint', 'state/checkpoint.json'], { cwd: dir });
  assert.match(status.stdout, /Cutover not complete/);

  const repair = await runCli(
    ['verify', '--repair', '--preset', 'sendbird', '--from', 'state/export', '--checkpoint', 'state/checkpoint.json'],
    { cwd: dir },
  );
  assert.equal(repair.code, 0, repair.stderr);
  const second = await runSync(dir, fake, ['--final', '--json']);
  assert.equal(second.code, 0, second.stderr);
  const summary = JSON.parse(second.stdout);
  assert.equal(summary.status, 'cutover-complete');
  assert.match(summary.statusLine, /^Cutover complete: every record of the export is in, and the last verify/);
  assert.equal(sb.lost().messages.length, lost, 'repaired: each lost message is stored the second time');

  // The report: the status line and the timeline of both final rounds, from the run log.
  const md = await runCli(['report', '--checkpoint', 'state/checkpoint.json', '--format', 'md', '--out', '-'], {
    cwd: dir,
  });
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /\*\*Cutover complete: /);
  assert.match(md.stdout, /### Cutover timeline/);
  assert.equal(md.stdout.match(/^\| final \|/gm)?.length, 2);
  const html = await runCli(['report', '--checkpoint', 'state/checkpoint.json', '--out', 'report.html'], { cwd: dir });
  assert.equal(html.code, 0, html.stderr);
  const page = await readFile(path.join(dir, 'report.html'), 'utf8');
  assert.match(page, /<h2>Cutover timeline<\/h2>/);
  assert.match(page, /data-figure="cutover.final">The final delta pulled \d+ records and imported 0; the full verify/);
});

test('the lag moves with a round that verified everything, and stays while a gap stays', () => {
  const at = Date.parse('2026-11-27T10:00:00Z');
  // A good round: the service has caught up with the newest message pulled.
  assert.deepEqual(lagAfter(at, at - 60_000, true), {
    newestPulledAt: '2026-11-27T10:00:00.000Z',
    newestVerifiedAt: '2026-11-27T10:00:00.000Z',
    lagMs: 0,
    newestVerifiedMs: at,
  });
  // A round with records missing keeps the last good point: the lag is the gap in message time.
  const gap = lagAfter(at + 90_000, at, false);
  assert.equal(gap.lagMs, 90_000);
  assert.equal(gap.newestVerifiedAt, '2026-11-27T10:00:00.000Z');
  // Nothing verified yet: no lag to show, rather than a made-up one.
  assert.equal(lagAfter(at, undefined, false).lagMs, undefined);
  // A quiet source (nothing pulled this round) keeps what was verified.
  assert.equal(lagAfter(undefined, at, true).newestVerifiedMs, at);
});

/** The `chat-migrate` commands of docs/nightly.md's workflow, in order, each as one shell line. */
async function nightlyCommands() {
  const doc = await readFile(path.join(ROOT, 'docs', 'nightly.md'), 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)[1].split('\n');
  const commands = [];
  for (let i = 0; i < yaml.length; i++) {
    const run = /^(\s*)(?:- )?run: (.*)$/.exec(yaml[i]);
    if (!run) continue;
    let text = run[2];
    if (text === '>-') {
      const parts = [];
      while (i + 1 < yaml.length && /^\s+\S/.test(yaml[i + 1]) && !/^\s*(- |[a-z-]+:)/.test(yaml[i + 1]))
        parts.push(yaml[++i].trim());
      text = parts.join(' ');
    }
    if (text.startsWith('chat-migrate ')) commands.push(text);
  }
  return commands;
}

test("docs/nightly.md's workflow runs: two nights pull, import and verify what is new", async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startFake(t);
  const dir = await tempDir('cm-nightly-');
  const commands = await nightlyCommands();
  assert.deepEqual(
    commands.map((c) => c.split(' ')[1]),
    ['pull', 'import', 'verify', 'report'],
  );
  const summary = path.join(dir, 'step-summary.md');
  const env = {
    ...process.env,
    ...fake.env,
    CI: 'true',
    NO_COLOR: '1',
    STATE: 'state',
    MIGRATE_API_KEY: API_KEY,
    MIGRATE_BASE_URL: sb.url,
    GITHUB_STEP_SUMMARY: summary,
  };
  const night = async () => {
    for (const command of commands) {
      // The only change: the pull goes to the fake instead of Sendbird's own host.
      const line = command.startsWith('chat-migrate pull') ? `${command} --base-url ${fake.url}` : command;
      const shell = `chat-migrate() { "${process.execPath}" "${BIN}" "$@"; }; ${line}`;
      const run = await collect(spawn('bash', ['-c', shell], { cwd: dir, env }));
      assert.equal(run.code, 0, `${line}\n${run.stderr}`);
    }
  };
  await night();
  const first = serviceMessages(sb);
  await postMessages(fake, 4, 'overnight');
  await night();
  assert.equal(serviceMessages(sb), first + 4);
  assert.equal(sb.stats().perEntity.messages.alreadyExists, 0, 'the second night sent only the new ones');
  const page = await readFile(summary, 'utf8');
  assert.match(page, /\*\*Complete: every record of the export is in, and the last verify found all of it/);
  assert.ok((await readdir(path.join(dir, 'state', 'export'))).some((f) => f.startsWith('delta-')));
  assert.match(await readFile(path.join(dir, 'state', 'report.html'), 'utf8'), /<h1>Migration report<\/h1>/);
});
