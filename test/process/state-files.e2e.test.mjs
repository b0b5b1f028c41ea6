// The files a migration keeps (checkpoint, lock, rejects file, id map): created with their folders on a
// first run, 0600, refused with words before anything is sent when they cannot be written, and never
// replaced by validate or by a run of another migration.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { API_KEY, BIN, collect, runCli, sandbox, spawnCli, tempDir, waitFor, writeConfig } from '../helpers.mjs';
import { PRESET_FIXTURES } from '../presets-helpers.mjs';

const SLACK = ['--preset', 'slack', '--from', path.join(PRESET_FIXTURES, 'slack')];
const SENDBIRD = ['--preset', 'sendbird', '--from', path.join(PRESET_FIXTURES, 'sendbird')];
// File modes mean nothing on Windows; everywhere else they are checked.
const MODES = process.platform !== 'win32';
const modeOf = async (file) => (await stat(file)).mode & 0o777;

/** A folder with a config for the sandbox and a two-user CSV export; a preset's flags take over from it. */
async function workspace(sb) {
  const dir = await tempDir('cm-state-');
  await writeFile(path.join(dir, 'users.csv'), 'uid,name\nu1,One\nu2,Two\n');
  await writeConfig(dir, { baseUrl: sb.url, requestsPerMinute: 100000, sources: { users: { path: 'users.csv' } } });
  return dir;
}

/**
 * Every file under `dir` with its bytes, so a run that adds, removes or rewrites one shows; but the
 * run log, which every run appends to by design (docs/report.md).
 */
async function snapshot(dir) {
  const out = {};
  for (const rel of (await readdir(dir, { recursive: true })).sort()) {
    if (rel.endsWith('.runs.ndjson')) continue;
    const file = path.join(dir, rel);
    const info = await stat(file);
    if (info.isFile()) out[rel] = { bytes: await readFile(file, 'latin1'), ino: info.ino, mtimeMs: info.mtimeMs };
  }
  return out;
}

test('a first run into folders that do not exist yet creates them, with checkpoint, rejects, id map', async () => {
  const sb = await sandbox();
  try {
    const dir = await workspace(sb);
    const run = await runCli(
      ['import', ...SLACK, '--checkpoint', 'cache/state/ckpt.json', '--rejects', 'cache/out/rejects.ndjson'],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.ok(sb.stats().requests > 0);
    const checkpoint = JSON.parse(await readFile(path.join(dir, 'cache/state/ckpt.json'), 'utf8'));
    assert.ok(checkpoint.phasesDone.includes('messages'));
    await stat(path.join(dir, 'cache/out/rejects.ndjson'));
    const ids = (await readFile(path.join(dir, 'cache/state/ckpt.ids.ndjson'), 'utf8')).trim().split('\n');
    assert.ok(ids.length > 10 && ids.every((l) => 'sourceId' in JSON.parse(l)));
    const state = (await readdir(path.join(dir, 'cache/state'))).sort();
    assert.deepEqual(
      state,
      ['ckpt.ids.ndjson', 'ckpt.imported.ndjson', 'ckpt.json', 'ckpt.prepass.json', 'ckpt.runs.ndjson'],
      'no lock, no temp file left',
    );
    const prepass = await stat(path.join(dir, 'cache/state/ckpt.prepass.json'));
    assert.equal(prepass.mode & 0o777, 0o600, "the pre-pass cache holds the export's ids: 0600");
  } finally {
    await sb.close();
  }
});

test('an unwritable state path stops the run before any request, naming the path and the reason', async () => {
  const sb = await sandbox();
  try {
    const dir = await workspace(sb);
    await writeFile(path.join(dir, 'blocker'), 'a file where a folder should be');
    const cases = [
      [['--checkpoint', 'blocker/ckpt.json'], 'lock file \\S+blocker/ckpt\\.json\\.lock', 'CHECKPOINT'],
      [['--rejects', 'blocker/sub/rejects.ndjson'], 'rejects file \\S+blocker/sub/rejects\\.ndjson', 'REJECTS'],
      [[...SLACK, '--checkpoint', 'blocker/ckpt.json'], 'id mapping file \\S+blocker/ckpt\\.ids\\.ndjson', 'IDMAP'],
    ];
    for (const [args, file, code] of cases) {
      const run = await runCli(['import', ...args], { cwd: dir });
      assert.equal(run.code, 1, run.stderr);
      const reason = `\\S+blocker is a file, not a folder \\(ENOTDIR\\) \\[${code}_UNWRITABLE\\]`;
      assert.match(run.stderr, new RegExp(`cannot (create|write) the ${file}: ${reason}`));
      assert.doesNotMatch(run.stderr, /\n\s+at /);
    }
    assert.equal(sb.stats().requests, 0, 'nothing sent');
  } finally {
    await sb.close();
  }
});

test('a state folder without write permission (0500) stops the run before any request', { skip: !MODES }, async (t) => {
  // As root the CLI runs as nobody, who must be able to reach node and the checkout (a clone in a
  // private temp folder or a Node under /root is out of its reach): otherwise there is nothing to test.
  /** @type {import('node:child_process').SpawnSyncOptions} */
  const asNobody = { uid: 65534, gid: 65534, stdio: 'ignore' };
  if (process.getuid?.() === 0 && spawnSync(process.execPath, [BIN, '--version'], asNobody).status !== 0) {
    t.skip('user nobody cannot run node or reach this checkout here');
    return;
  }
  const sb = await sandbox();
  try {
    const dir = await workspace(sb);
    const locked = path.join(dir, 'locked');
    await mkdir(locked);
    // Root ignores file modes: the CLI then runs as nobody, who owns the workspace but may not write in
    // `locked` either.
    const asRoot = process.getuid?.() === 0;
    const owned = [dir, '.migrate.config.json', 'users.csv', 'locked'];
    if (asRoot) for (const p of owned) await chown(path.resolve(dir, p), 65534, 65534);
    await chmod(locked, 0o500);
    const runAsOwner = (args) =>
      collect(
        spawn(process.execPath, [BIN, 'import', ...args], {
          cwd: dir,
          env: { ...process.env, CI: 'true', NO_COLOR: '1', MIGRATE_API_KEY: API_KEY },
          stdio: ['ignore', 'pipe', 'pipe'],
          ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        }),
      );
    const cases = [
      // The folder is named: it is what cannot be made, not the file.
      [
        ['--checkpoint', 'locked/state/c.json'],
        'lock file \\S+: cannot create the folder \\S+locked/state',
        'CHECKPOINT',
      ],
      [['--rejects', 'locked/rejects.ndjson'], 'rejects file \\S+locked/rejects\\.ndjson', 'REJECTS'],
      [[...SLACK, '--checkpoint', 'locked/ckpt.json'], 'id mapping file \\S+locked/ckpt\\.ids\\.ndjson', 'IDMAP'],
    ];
    for (const [args, what, code] of cases) {
      const run = await runAsOwner(args);
      assert.equal(run.code, 1, run.stderr);
      const message = `cannot (create|write) the ${what}: permission denied \\(EACCES\\) \\[${code}_UNWRITABLE\\]`;
      assert.match(run.stderr, new RegExp(message));
    }
    assert.equal(sb.stats().requests, 0, 'nothing sent');
  } finally {
    await sb.close();
  }
});

test('checkpoint, lock, rejects and id map are created 0600 and stay so when rewritten', { skip: !MODES }, async () => {
  // Real time: the latency keeps the run (and its lock file) there long enough to read the lock's mode.
  const sb = await sandbox({ latencyMs: 150 });
  try {
    const dir = await workspace(sb);
    const file = (name) => path.join(dir, name);
    const child = spawnCli(['import', ...SLACK], { cwd: dir });
    const done = collect(child);
    let lockMode;
    await waitFor(
      async () => {
        lockMode = await modeOf(file('.migrate-checkpoint.json.lock')).catch(() => undefined);
        return lockMode !== undefined;
      },
      { what: 'the lock file' },
    );
    assert.equal((await done).code, 0);
    assert.equal(lockMode, 0o600, 'lock');
    const names = ['.migrate-checkpoint.json', 'migrate-rejects.ndjson', '.migrate-checkpoint.ids.ndjson'];
    for (const name of names) assert.equal(await modeOf(file(name)), 0o600, name);
    // Files an older version left readable: the next run's temp + rename gives them 0600 again.
    await chmod(file('.migrate-checkpoint.json'), 0o644);
    await chmod(file('.migrate-checkpoint.ids.ndjson'), 0o644);
    const again = await runCli(['import', ...SLACK], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    for (const name of names) assert.equal(await modeOf(file(name)), 0o600, `${name} after a rewrite`);
  } finally {
    await sb.close();
  }
});

test("validate, --dry-run and runs of another migration leave an import's id map as it is", async () => {
  const sb = await sandbox();
  try {
    const dir = await workspace(sb);
    assert.equal((await runCli(['import', ...SLACK], { cwd: dir })).code, 0);
    const idMap = path.join(dir, '.migrate-checkpoint.ids.ndjson');
    assert.match(await readFile(idMap, 'utf8'), /"entity":"users"/);
    const before = await snapshot(dir);
    for (const args of [
      ['validate', ...SLACK],
      ['validate', ...SENDBIRD],
      ['import', '--dry-run', ...SENDBIRD],
    ]) {
      const run = await runCli(args, { cwd: dir });
      assert.ok(run.code === 0 || run.code === 3, `${args.join(' ')}\n${run.stderr}`);
      assert.deepEqual(await snapshot(dir), before, `${args[0]} ${args[1]} wrote no file`);
    }
    // Another export on this checkpoint is another migration: refused, and its id map is not written.
    const other = await runCli(['import', ...SENDBIRD], { cwd: dir });
    assert.equal(other.code, 1);
    assert.match(other.stderr, /made for another set of sources/);
    // A second run while the first holds the lock neither.
    const owner = { pid: process.pid, host: hostname(), startedAt: 'now' };
    await writeFile(path.join(dir, '.migrate-checkpoint.json.lock'), JSON.stringify(owner));
    const locked = await runCli(['import', ...SLACK], { cwd: dir });
    assert.match(locked.stderr, /another run/);
    const after = await snapshot(dir);
    delete after['.migrate-checkpoint.json.lock'];
    assert.deepEqual(after, before, 'the id map is byte-identical and no temporary file is left');
  } finally {
    await sb.close();
  }
});

test("the sandbox's dump of what it stored is 0600 too", { skip: !MODES }, async () => {
  const dumpFile = path.join(await tempDir('cm-state-'), 'dump.json');
  const sb = await sandbox({ dumpFile });
  await sb.close();
  assert.equal(await modeOf(dumpFile), 0o600);
});
