// Messages older than retentionDays (issue 26 point 6): skipped by default, counted in the ledger,
// named by validate, not missing to verify; and, with the window set too long against a sandbox that
// refuses them as the vendor's guides say the service does, isolated as rejects once, never re-sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readNdjson, runCli } from '../helpers.mjs';
import { importRun, verifySandbox, verify, verifyWorkspace } from '../verify-helpers.mjs';

// Every third message (i = 2, 5, ..., 59) is 200+ days old: 20 old ones spread over both batches of
// 50, so each batch meets them between young ones; the others are 0-59 days old.
const OLD = (i) => i % 3 === 2;
const ageDays = (i) => (OLD(i) ? 200 + i : i);
const oldIds = Array.from({ length: 60 }, (_, i) => i)
  .filter(OLD)
  .map((i) => `msg${i}`);
const youngIds = Array.from({ length: 60 }, (_, i) => i)
  .filter((i) => !OLD(i))
  .map((i) => `msg${i}`);

// The tool's own default window (180 days): the helpers' workspaces otherwise set it unlimited.
const DEFAULT_WINDOW = { retentionDays: undefined };
/**
 * The 500s a batch meets when each one naming retention splits it at once, in halves (the first one
 * the larger), down to the old messages alone: one a group holding an old message, never the same
 * group twice (a retry of the same body could only fail again).
 */
function refusalsOf(ids) {
  if (!ids.some((id) => oldIds.includes(id))) return 0;
  if (ids.length === 1) return 1;
  const half = Math.ceil(ids.length / 2);
  return 1 + refusalsOf(ids.slice(0, half)) + refusalsOf(ids.slice(half));
}

const refusing = (t) => verifySandbox(t, { retentionDays: 180, refuseBeyondRetention: true });
const statusOf = async (dir) => JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout).migration;

test('by default old messages are skipped as beyond-retention: counted, never sent, not missing', async (t) => {
  const sb = await refusing(t);
  const ws = await verifyWorkspace(sb.url, { ageDays }, DEFAULT_WINDOW);
  const run = await importRun(ws.dir, ['--json']);
  // The default window is no decision of the user's: the run says so with exit 3.
  assert.equal(run.code, 3, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.deepEqual([summary.retention.notSent, summary.retention.chosen], [20, false]);
  assert.deepEqual(summary.entities.messages.skippedBy, { 'beyond-retention': 20 });
  assert.equal(summary.entities.messages.imported, 40);
  assert.match(run.stderr, /20 messages were sent before \d{4}-\d\d-\d\d, beyond the service's 180-day retention/);
  assert.match(run.stderr, /set[s]? retentionDays to its window/);

  const stats = await sb.stats();
  assert.equal(stats.faults.beyondRetention, 0, 'no old message reached the service');
  assert.deepEqual(Object.keys((await sb.records()).messages).sort(), [...youngIds].sort());

  const migration = await statusOf(ws.dir);
  assert.equal(migration.entities.messages.skippedBy['beyond-retention'], 20);
  assert.equal(migration.state, 'complete');
  assert.match(migration.statusLine, /but 20 messages older than the retention window \(beyond-retention\)/);

  const checked = await verify(ws.dir, ['--json']);
  assert.equal(checked.code, 0, checked.stdout);
  const messages = JSON.parse(checked.stdout).entities.messages;
  assert.deepEqual([messages.missing, messages.beyondRetention, messages.present], [0, 20, 40]);
});

test('validate names the old messages by file:line, with the cutoff date and how to send them', async () => {
  const { dir } = await verifyWorkspace('http://127.0.0.1:9', { ageDays }, DEFAULT_WINDOW);
  const run = await runCli(['validate'], { cwd: dir });
  assert.equal(run.code, 3, run.stderr);
  const cutoff = new Date(Date.now() - 180 * 86_400_000).toISOString().slice(0, 10);
  assert.match(
    run.stdout,
    new RegExp(`^note: 20 messages sent before ${cutoff} are beyond the 180-day retention window`, 'm'),
  );
  // Message i is on line i + 1: the first ten old ones, then how many more.
  const named = run.stdout.match(/^ {2}messages\.ndjson:\d+$/gm).map((l) => l.trim());
  assert.deepEqual(
    named,
    oldIds.slice(0, 10).map((id) => `messages.ndjson:${Number(id.slice(3)) + 1}`),
  );
  assert.match(run.stdout, /^ {2}\(10 more\)$/m);
  assert.match(run.stdout, /to send them: an app with extended storage sets retentionDays to its window .*or 0/);
  assert.match(run.stdout, /messages +60 records, 0 errors, 0 warnings, 20 skipped/);

  const json = JSON.parse((await runCli(['validate', '--json'], { cwd: dir })).stdout);
  assert.equal(json.beyondRetention, 20);
  assert.equal(json.retention.cutoff, cutoff);
  assert.equal(json.retention.first[0].line, 3);
  const unlimited = await runCli(['validate', '--retention-days', '0'], { cwd: dir });
  assert.doesNotMatch(unlimited.stdout + unlimited.stderr, /retention/);
});

test('a window set too long: the refusing service isolates old ones as rejects, each row stored once', async (t) => {
  const sb = await refusing(t);
  const ws = await verifyWorkspace(sb.url, { ageDays }, DEFAULT_WINDOW);
  const first = await importRun(ws.dir, ['--json', '--retention-days', '3650']);
  assert.equal(first.code, 3, first.stderr);
  const counts = JSON.parse(first.stdout).entities.messages;
  assert.equal(counts.rejected, 20);
  // Rows a failed request stored come back already-exists when their half is sent again.
  assert.equal(counts.imported + counts.alreadyPresent, 40);

  const stats = await sb.stats();
  const all = Array.from({ length: 60 }, (_, i) => `msg${i}`);
  // Batches of 50: msg0..msg49, then msg50..msg59.
  const expected = refusalsOf(all.slice(0, 50)) + refusalsOf(all.slice(50));
  assert.equal(stats.faults.beyondRetention, expected, 'each group refused once: split at once, never retried');
  assert.equal(stats.perEntity.messages.stored, 40, 'every young message stored once');
  assert.deepEqual(Object.keys((await sb.records()).messages).sort(), [...youngIds].sort());

  const rejects = await readNdjson(path.join(ws.dir, 'migrate-rejects.ndjson'));
  assert.deepEqual(rejects.map((r) => r.id).sort(), [...oldIds].sort());
  for (const r of rejects) {
    assert.equal(r.code, 'beyond-retention');
    assert.match(r.message, /Messages older than 180 days cannot be imported/);
    assert.match(r.message, /older than the app's retention window, and retentionDays \(3650 days\) is longer/);
  }

  // Later runs with the same setting: the old ones stay rejected, and not one request carries a message.
  const requestsBefore = stats.perEntity.messages.requests;
  const again = await importRun(ws.dir, ['--json', '--retention-days', '3650']);
  assert.equal(again.code, 3, again.stderr);
  const second = JSON.parse(again.stdout).entities.messages;
  assert.deepEqual([second.rejected, second.rejectedEarlier, second.requests], [20, 20, 0]);
  assert.equal((await sb.stats()).perEntity.messages.requests, requestsBefore);
  assert.equal((await readNdjson(path.join(ws.dir, 'migrate-rejects.ndjson'))).length, 20, 'written once');

  // A dry replay with the window right says what the replay would do: skip them, send none.
  const dry = await runCli(['replay', '--dry-run', '--json'], { cwd: ws.dir });
  const planned = JSON.parse(dry.stdout);
  assert.deepEqual([planned.open, planned.wouldSend, planned.skipped], [20, 0, 20], dry.stderr);

  // With the window right, the rejects close as skips: the migration is complete, the old ones named.
  const fixed = await importRun(ws.dir, ['--json', '--retention-days', '180']);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal((await sb.stats()).perEntity.messages.requests, requestsBefore);
  const migration = await statusOf(ws.dir);
  assert.equal(migration.total.open, 0);
  assert.equal(migration.entities.messages.skippedBy['beyond-retention'], 20);
  assert.match(migration.statusLine, /^Complete: .* but 20 messages older than the retention window/);
});

const lastLine = (text) => text.trimEnd().split('\n').at(-1);

test('a window nobody set: validate and import end saying how many messages are not sent, exit 3', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url, { ageDays }, DEFAULT_WINDOW);
  const cutoff = new Date(Date.now() - 180 * 86_400_000).toISOString().slice(0, 10);
  const checked = await runCli(['validate'], { cwd: ws.dir });
  assert.equal(checked.code, 3, checked.stderr);
  const undecided = `Not sent: 20 messages sent before ${cutoff}, beyond the default 180-day retention window`;
  assert.ok(lastLine(checked.stdout).startsWith(undecided), checked.stdout);
  assert.match(lastLine(checked.stdout), /retentionDays is not set/);

  const run = await importRun(ws.dir, []);
  assert.equal(run.code, 3, run.stderr);
  assert.ok(lastLine(run.stdout).startsWith(undecided), run.stdout);

  // Set by the user: the same messages left out, said the same way, and the run is a success.
  const decided = await importRun(ws.dir, ['--retention-days', '180']);
  assert.equal(decided.code, 0, decided.stderr);
  const line = `Not sent: 20 messages sent before ${cutoff}, beyond the 180-day retention window (retentionDays).`;
  assert.equal(lastLine(decided.stdout), line);
  const validated = await runCli(['validate', '--retention-days', '180'], { cwd: ws.dir });
  assert.equal(validated.code, 0, validated.stderr);
  assert.equal(lastLine(validated.stdout), line);
});

test('a window cleared later: the messages skipped only as too old are sent by the next import', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url, { ageDays }, DEFAULT_WINDOW);
  const first = await importRun(ws.dir, ['--retention-days', '180']);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(Object.keys((await sb.records()).messages).sort(), [...youngIds].sort());

  const cleared = await importRun(ws.dir, ['--json', '--retention-days', '0']);
  assert.equal(cleared.code, 0, cleared.stderr);
  const messages = JSON.parse(cleared.stdout).entities.messages;
  assert.deepEqual([messages.imported, messages.resumed, messages.skipped], [20, 40, 0]);
  assert.equal(Object.keys((await sb.records()).messages).length, 60);

  const migration = await statusOf(ws.dir);
  assert.deepEqual(migration.entities.messages.skippedBy, {});
  assert.equal(migration.entities.messages.imported, 60);
  assert.equal(migration.statusLine, 'Complete: every record of the export is in.');
  // Nothing left to send: a run after it sends nothing and says every record is in.
  const again = await importRun(ws.dir, ['--json', '--retention-days', '0']);
  assert.equal(JSON.parse(again.stdout).entities.messages.imported, 0, again.stderr);
});

test('validate checks the messages beyond the window too: what a cleared window would reject is named', async (t) => {
  const sb = await verifySandbox(t);
  const ws = await verifyWorkspace(sb.url, { ageDays }, DEFAULT_WINDOW);
  const file = path.join(ws.dir, 'messages.ndjson');
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  // Two old messages given the id of another old one, with other text: line 61 and 62.
  const copy = (n) => JSON.stringify({ ...JSON.parse(lines[2]), data: { text: `another text ${n}` } });
  await writeFile(file, `${[...lines, copy(1), copy(2)].join('\n')}\n`);

  const run = await runCli(['validate', '--retention-days', '180'], { cwd: ws.dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /sent with a window that allows them, 2 errors would be rejected:/);
  const named = run.stdout.match(/^ {4}messages\.ndjson:(\d+): message msg2: .*$/gm) ?? [];
  assert.deepEqual(
    named.map((l) => Number(l.match(/:(\d+):/)[1])),
    [61, 62],
    run.stdout,
  );

  // The import with the window cleared rejects exactly those two.
  const cleared = await importRun(ws.dir, ['--retention-days', '0']);
  assert.equal(cleared.code, 3, cleared.stderr);
  const rejects = await readNdjson(path.join(ws.dir, 'migrate-rejects.ndjson'));
  assert.deepEqual(rejects.map((r) => r.line).sort(), [61, 62]);
});
