// A sync round with nothing new reads no message file of the earlier rounds again, and its line says so;
// its pre-pass takes the files of the earlier pulls from the cache.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { startFake } from '../fakes/helpers.mjs';
import { runCli, sandbox } from '../helpers.mjs';
import { startSyncFake, syncWorkspace } from '../sync-helpers.mjs';
import { virtualClock } from '../virtual-clock.mjs';

/** Two rounds of a sync of the Sendbird fake's `world`, a minute apart; the second pulls nothing new. */
async function twoRounds(t, world) {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startSyncFake(t, { world });
  const dir = await syncWorkspace(sb);
  const args = ['sync', 'sendbird', '--out', 'state/export', '--rounds', '2', '--interval', '60', '--json'];
  const run = await runCli([...args, '--source-base-url', fake.url], {
    cwd: dir,
    env: fake.env,
    clock: virtualClock(),
  });
  assert.equal(run.code, 0, run.stderr);
  return { dir, stderr: run.stderr, rounds: JSON.parse(run.stdout).rounds };
}

test('a sync round with nothing new says how many files it did not read again', async (t) => {
  const { stderr, rounds } = await twoRounds(t, { users: 3, channels: 2, messages: 10, seed: 11 });
  const [first, second] = rounds;
  assert.ok(first.imported > 0, JSON.stringify(first));
  assert.equal(first.unchangedFiles, 0);
  assert.equal(second.imported + second.alreadyPresent + second.rejected, 0, JSON.stringify(second));
  assert.ok(second.unchangedFiles > 0, JSON.stringify(second));
  const files = second.unchangedFiles;
  assert.match(stderr, new RegExp(`round 2: nothing new: ${files} files? unchanged \\(not read again\\); verified`));
});

test('a sync round with nothing new does not verify-read a message file older than its window', async (t) => {
  // Two channels, one of them quiet for hours before the newest message: its file is older than the window.
  const { dir, stderr, rounds } = await twoRounds(t, { users: 3, channels: 2, messages: 40, seed: 11 });
  const [first, second] = rounds;
  assert.equal(first.verified.filesNotRead, 0, 'the first round verifies everything');
  const since = Date.parse(second.verified.since) / 1000;
  const checkpoint = JSON.parse(await readFile(path.join(dir, 'state/checkpoint.json'), 'utf8'));
  const files = Object.entries(checkpoint.files).filter(([key]) => key.startsWith('messages:'));
  const old = files.filter(([, f]) => f.newestSentAt < since).length;
  assert.ok(old > 0 && old < files.length, `${old} of ${files.length} message files older than ${since}`);
  // The old ones as older than the window; the others as read before round 2 and verified whole by a
  // good round 1 (a late reply would come in a file of its own).
  assert.equal(second.verified.filesNotRead, files.length, 'no message file of round 1 was read again');
  // What the window holds is all there.
  assert.equal(second.verified.present, second.verified.expected);
  assert.equal(second.verified.missing + second.verified.different, 0);
  assert.match(
    stderr,
    new RegExp(`round 2: nothing new: .*; verify did not read ${files.length} older message files?\\n`),
  );
});

test('a two-person conversation skipped as a group does not make every round read every message file', async (t) => {
  const { dir, rounds } = await twoRounds(t, { users: 6, channels: 8, messages: 80, seed: 11 });
  const checkpoint = JSON.parse(await readFile(path.join(dir, 'state/checkpoint.json'), 'utf8'));
  const direct = Object.values(checkpoint.blocked ?? {}).filter((m) => m.reason === 'skipped:direct-conversation');
  assert.ok(direct.length > 0, 'the world has a direct conversation, in the table of parents not in');
  const files = Object.keys(checkpoint.files).filter((key) => key.startsWith('messages:')).length;
  assert.equal(rounds[1].unchangedFiles, files, JSON.stringify(rounds[1]));
});

test('sync stream: a round with nothing new takes every earlier file from the pre-pass cache', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const fake = await startFake(t, 'stream', { world: { users: 3, channels: 2, messages: 8, seed: 7 } });
  const dir = await syncWorkspace(sb);
  const cacheFile = path.join(dir, 'state/checkpoint.prepass.json');
  // Between the rounds (the interval's wait), every kept fact is marked: one read again loses the mark.
  const clock = virtualClock();
  const sleep = clock.sleep;
  let marked;
  clock.sleep = async (ms, signal) => {
    if (ms >= 60_000 && marked === undefined) {
      const cache = JSON.parse(await readFile(cacheFile, 'utf8'));
      for (const entry of cache.entries) entry.facts.keptSince = 'round 1';
      await writeFile(cacheFile, JSON.stringify(cache));
      marked = new Set(cache.entries.map((e) => e.rel));
    }
    return sleep(ms, signal);
  };
  const args = ['sync', 'stream', '--out', 'state/export', '--rounds', '2', '--interval', '60', '--json'];
  const run = await runCli([...args, '--source-base-url', fake.url, '--source-requests-per-minute', '60000'], {
    cwd: dir,
    env: fake.env,
    clock,
  });
  assert.equal(run.code, 0, run.stderr);
  const [first, second] = JSON.parse(run.stdout).rounds;
  assert.ok(first.imported > 0, JSON.stringify(first));
  assert.equal(second.imported + second.alreadyPresent + second.rejected, 0, JSON.stringify(second));
  const { entries } = JSON.parse(await readFile(cacheFile, 'utf8'));
  const messageFiles = new Set(entries.filter((e) => e.rel.includes('/messages/')).map((e) => e.rel));
  assert.equal(messageFiles.size, 2, 'the pull wrote a messages file per channel');
  assert.deepEqual(new Set(entries.map((e) => e.rel)), marked, 'the round with nothing new has no file of its own');
  assert.deepEqual(
    entries.filter((e) => e.facts.keptSince !== 'round 1').map((e) => `${e.pass} ${e.rel}`),
    [],
    'every file of round 1 taken from the cache in round 2',
  );
});
