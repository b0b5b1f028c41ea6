// `sync --final` and docs/nightly.md's workflow, in-process (the CLI through its `main`): the Sendbird
// fake as the live source, the import sandbox as the service. The cutover exits 3 while the service
// lacks a record and 0 once it is across; the nightly workflow's shell lines run as documented.
// Build first: npm run build
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { lagAfter } from '../../dist/pipeline/sync/sync-lag.js';
import { startSyncFake, syncWorkspace } from '../sync-helpers.mjs';
import { API_KEY, ROOT, runCli, sandbox, tempDir } from '../helpers.mjs';

const runSync = (dir, fake, extra = []) =>
  runCli(['sync', 'sendbird', '--out', 'state/export', '--source-base-url', fake.url, ...extra], {
    cwd: dir,
    env: fake.env,
  });

/**
 * The words bash makes of a `chat-migrate ...` line (its quotes and `$VARIABLES`), without the
 * command's name: the line runs as the workflow's shell would read it, the CLI in this process.
 */
async function shellWords(line, env) {
  const rest = line.replace(/^chat-migrate /, '');
  const { stdout } = await promisify(execFile)('bash', ['-c', `printf '%s\\0' ${rest}`], { env });
  return stdout.split('\0').slice(0, -1);
}

/** Posts `n` messages to the fake, in its first channel, from one of that channel's members. */
async function postMessages(fake, n, text) {
  const world = await fake.call('GET', '/__fake/world');
  const channel = world.channels[0];
  for (let i = 0; i < n; i++) {
    // The first channel is public: every user of the world is in it.
    await fake.call('POST', '/__fake/messages', { channelId: channel.id, senderId: 'user-0001', text: `${text} ${i}` });
  }
}

const serviceMessages = (sb) => Object.keys(sb.records().messages).length;

test('sync --final exits 3 while the service lacks a record and 0 once it is across', async (t) => {
  // The service answers success for some messages and keeps none of them (each is lost once).
  const sb = await sandbox({ faults: { loseShare: 0.1 }, seed: 5 });
  t.after(() => sb.close());
  const fake = await startSyncFake(t);
  const dir = await syncWorkspace(sb);
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
  const fake = await startSyncFake(t);
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
      const run = await runCli(await shellWords(line, env), { cwd: dir, env });
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
