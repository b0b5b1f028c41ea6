// Undo removes everything this migration created (issue 36, point 2): after `import --fresh`, after a
// request stored then answered 500, after a kill -9 whose resumed run saw "already there". Each ends
// with the sandbox holding exactly what it held before the migration: its own records, kept.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  collect,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitFor,
  writeConfig,
  writeGeneratedExport,
} from '../helpers.mjs';

const RATES = { requestsPerMinute: 1e9, restRequestsPerMinute: 1e9 };
const SIZES = { users: 40, groups: 8, membersPerGroup: 8, messages: 600 };
const snapshot = (sb) => JSON.parse(JSON.stringify(sb.records()));

/** What the app held before: a user of its own, which the export names too (so it answers already-exists). */
async function seed(sb) {
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.ndjson'), `${JSON.stringify({ uid: 'user0', name: 'Old' })}\n`);
  await writeConfig(dir, { baseUrl: sb.url, ...RATES, sources: { users: { path: 'users.ndjson' } } });
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
  return snapshot(sb);
}

async function exportDir(sb, config = {}) {
  const dir = await tempDir();
  const { sources } = await writeGeneratedExport(dir, SIZES);
  await writeConfig(dir, { baseUrl: sb.url, ...RATES, sources, ...config });
  return dir;
}

/** undo --yes: exit 0, and the dry run before it and the status line after it say the kept user. */
async function undoAll(dir) {
  const dry = await runCli(['undo', '--dry-run'], { cwd: dir });
  assert.match(dry.stdout, /keeps 1 record the service already had when this migration sent them/);
  const undo = await runCli(['undo', '--yes'], { cwd: dir });
  assert.equal(undo.code, 0, undo.stderr);
  const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout);
  assert.equal(status.migration.state, 'undone');
  assert.match(status.migration.statusLine, /kept: 1 record the service already had/);
}

test('undo after import --fresh deletes what the run before --fresh created too', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const before = await seed(sb);
  const dir = await exportDir(sb);
  assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
  const fresh = await runCli(['import', '--fresh', '--json'], { cwd: dir });
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(JSON.parse(fresh.stdout).totals.imported, 0, 'the fresh run found everything there');
  await undoAll(dir);
  assert.deepEqual(snapshot(sb), before);
});

test('undo deletes records a request stored and answered 500 for, which the retry saw as already there', async (t) => {
  const sb = await sandbox({ seed: 7, faults: { fail500AfterStore: 0.3 } });
  t.after(() => sb.close());
  const before = await seed(sb);
  const dir = await exportDir(sb, { retries: 10 });
  const run = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.ok(sb.stats().faults.fail500AfterStore > 0);
  assert.ok(JSON.parse(run.stdout).totals.alreadyPresent > 1, 'retries saw records already there');
  await undoAll(dir);
  assert.deepEqual(snapshot(sb), before);
});

test('undo after kill -9 mid-batch deletes what the resumed run saw as already there', async (t) => {
  // Every import request waits before it stores, stored even once the client is gone: the killed
  // run's batch lands with its answer lost.
  const sb = await sandbox({ faults: { slowRate: 1, slowMs: 300 } });
  t.after(() => sb.close());
  const before = await seed(sb);
  const dir = await exportDir(sb);
  const child = spawnCli(['import'], { cwd: dir });
  const done = collect(child);
  // Killed while a message request is in the sandbox's wait: every member stored, a request arrived
  // and not yet handled.
  const inFlight = () => {
    const { requests, perEntity } = sb.stats();
    const handled = Object.values(perEntity).reduce((n, e) => n + e.requests, 0);
    return perEntity.members.stored === SIZES.groups * SIZES.membersPerGroup && requests > handled;
  };
  await waitFor(inFlight, { everyMs: 2, what: 'a message request in flight' });
  child.kill('SIGKILL');
  assert.equal((await done).signal, 'SIGKILL');
  await waitFor(() => sb.stats().perEntity.messages.stored > 0, { what: 'the killed batch stored' });
  const resumed = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.ok(JSON.parse(resumed.stdout).entities.messages.alreadyPresent > 0, 'the resumed run saw them there');
  await undoAll(dir);
  assert.deepEqual(snapshot(sb), before);
});
