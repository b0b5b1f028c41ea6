// The checkpoint itself is safe: torn, foreign, locked or unwritable checkpoints are clear errors.
import assert from 'node:assert/strict';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fixtureWorkspace, runCli, sandbox, tempDir } from '../helpers.mjs';

const noStack = (text) => assert.doesNotMatch(text, /\n\s+at /);

test('a torn checkpoint is a clear error with a way out (--fresh), never a crash or a silent restart', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    const file = path.join(dir, '.migrate-checkpoint.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, Math.floor(text.length / 2)));
    const before = sb.stats().requests;
    const run = await runCli(['import'], { cwd: dir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /checkpoint .* is damaged \(not valid JSON/);
    assert.match(run.stderr, /--fresh/);
    noStack(run.stderr);
    assert.equal(sb.stats().requests, before, 'nothing sent');
    const fresh = await runCli(['import', '--fresh'], { cwd: dir });
    assert.equal(fresh.code, 0, fresh.stderr);
  } finally {
    await sb.close();
  }
});

test('a checkpoint made for another target or another set of sources is refused', async () => {
  const sb = await sandbox();
  const other = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    const run = await runCli(['import', '--base-url', other.url], { cwd: dir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /belongs to a migration into http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+/);
    assert.equal(other.stats().requests, 0);
    const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
    config.sources.users.path = 'users-other.csv';
    await writeFile(path.join(dir, 'users-other.csv'), 'uid,name\nx,X\n');
    await writeFile(path.join(dir, '.migrate.config.json'), JSON.stringify(config), { mode: 0o600 });
    const run2 = await runCli(['import'], { cwd: dir });
    assert.equal(run2.code, 1);
    assert.match(run2.stderr, /made for another set of sources/);
  } finally {
    await sb.close();
    await other.close();
  }
});

test('two runs on one checkpoint: the second is refused; a stale lock of a dead process is taken over', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    const lock = path.join(dir, '.migrate-checkpoint.json.lock');
    // A live owner: this test process.
    await writeFile(
      lock,
      JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), startedAt: 'now' }),
    );
    const refused = await runCli(['import'], { cwd: dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`another run \\(pid ${process.pid}`));
    assert.equal(sb.stats().requests, 0);
    // A dead owner: a pid that cannot exist.
    await writeFile(
      lock,
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), startedAt: 'then' }),
    );
    const taken = await runCli(['import'], { cwd: dir });
    assert.equal(taken.code, 0, taken.stderr);
    await assert.rejects(readFile(lock), { code: 'ENOENT' }, 'lock released at the end');
  } finally {
    await sb.close();
  }
});

test('an unwritable checkpoint or rejects path is fatal before anything is sent', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    // A missing folder is created (a first run); a file where a folder should be cannot be.
    await writeFile(path.join(dir, 'no'), 'a file');
    const underFile = path.join(dir, 'no', 'such', 'dir', 'state.json');
    const run = await runCli(['import', '--checkpoint', underFile], { cwd: dir });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /lock file .* is a file, not a folder/);
    noStack(run.stderr);
    const blocked = path.join(dir, 'blocked');
    await mkdir(blocked);
    // A directory as the rejects path: unwritable for every user, root included (root ignores file modes).
    const run2 = await runCli(['import', '--rejects', blocked], { cwd: dir });
    assert.equal(run2.code, 1);
    assert.match(run2.stderr, /cannot write the rejects file .*blocked: is a folder, not a file \(EISDIR\)/);
    assert.equal(sb.stats().requests, 0);
  } finally {
    await sb.close();
  }
});

test('a save asked for the moment the previous one resolves is written too (no save is left waiting)', async () => {
  const { CheckpointStore, readCheckpoint } = await import('../../dist/checkpoint/store.js');
  const dir = await tempDir('cm-store-');
  const file = path.join(dir, 'checkpoint.json');
  const store = await CheckpointStore.open(file, { target: { baseUrl: 'https://x.example' }, sourcesHash: 'h' }, true);
  const progress = store.fileProgress('messages', 'm.ndjson');
  // Each save starts in the continuation of the previous one: the window in which a coalescing
  // writer can miss a request. A missed one never resolves and this test times out.
  for (let i = 0; i < 200; i++) {
    progress.ack(i * 50, i * 50 + 50);
    await store.save();
  }
  const onDisk = await readCheckpoint(file);
  assert.equal(onDisk.files['messages:m.ndjson'].watermark, 200 * 50);
});

test('saveSoon spaces writes out; a save, or flush, writes the one still waiting at once', async () => {
  const { CheckpointStore, readCheckpoint } = await import('../../dist/checkpoint/store.js');
  const dir = await tempDir('cm-store-');
  const file = path.join(dir, 'checkpoint.json');
  const store = await CheckpointStore.open(
    file,
    { target: { baseUrl: 'https://x.example' }, sourcesHash: 'h' },
    true,
    60_000,
  );
  const progress = store.fileProgress('messages', 'm.ndjson');
  const watermark = async () => (await readCheckpoint(file))?.files['messages:m.ndjson']?.watermark;
  progress.ack(0, 50);
  await store.saveSoon(); // nothing written yet: goes at once
  assert.equal(await watermark(), 50);
  // Within the interval: folded into one deferred write, nothing on disk until then.
  const waiting = [];
  for (let i = 1; i < 20; i++) {
    progress.ack(i * 50, i * 50 + 50);
    waiting.push(store.saveSoon());
  }
  assert.equal(new Set(waiting).size, 1, 'one deferred write for all of them');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(await watermark(), 50);
  // A plain save does not wait for the interval, and settles the deferred one with it.
  progress.ack(1000, 1050);
  await store.save();
  await waiting[0];
  assert.equal(await watermark(), 1050);
  // flush writes a deferred save now (the run's end, before the lock goes).
  progress.ack(1050, 1100);
  const late = store.saveSoon();
  await store.flush();
  await late;
  assert.equal(await watermark(), 1100);
});

test('each checkpoint carries the rejects file mark, and writes the rejects lines to disk before itself', async () => {
  const { CheckpointStore, readCheckpoint } = await import('../../dist/checkpoint/store.js');
  const dir = await tempDir('cm-store-');
  const file = path.join(dir, 'checkpoint.json');
  const store = await CheckpointStore.open(file, { target: { baseUrl: 'https://x.example' }, sourcesHash: 'h' }, true);
  let bytes = 0;
  const seenAtPersist = [];
  store.keepInStep({
    get mark() {
      return { path: 'r.ndjson', bytes, run: 'r1', before: 'b' };
    },
    // What a reader of the checkpoint could see while the companion was being put on disk.
    persist: async () => {
      seenAtPersist.push((await readCheckpoint(file))?.rejects?.bytes);
    },
  });
  bytes = 10;
  await store.save();
  bytes = 25;
  await store.save();
  assert.deepEqual(seenAtPersist, [undefined, 10], 'the companion is on disk before the checkpoint that marks it');
  assert.deepEqual((await readCheckpoint(file)).rejects, { path: 'r.ndjson', bytes: 25, run: 'r1', before: 'b' });
});

test("a resume takes out the interrupted run's rejects lines past its mark, and no other line", async () => {
  const { RejectsWriter } = await import('../../dist/checkpoint/rejects-file.js');
  const dir = await tempDir('cm-store-');
  const rejectsPath = path.join(dir, 'rejects.ndjson');
  /** @type {(line: number) => import('../../dist/checkpoint/rejects-file.js').RejectEntry} */
  const entry = (line) => ({
    entity: 'messages',
    file: 'm.ndjson',
    line,
    code: 'message.text.empty',
    message: 'no text',
  });
  const lines = async () =>
    (await readFile(rejectsPath, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).line);
  const crashedRun = async () => {
    await writeFile(rejectsPath, '');
    const writer = await RejectsWriter.open(rejectsPath);
    writer.write(entry(1));
    writer.write(entry(2));
    await writer.persist();
    const mark = writer.mark; // what a checkpoint written now would hold
    writer.write(entry(3)); // acknowledged after that checkpoint: the resume reads it again
    await writer.close();
    // Another migration sharing the file appends after the crash.
    await appendFile(rejectsPath, `${JSON.stringify({ ...entry(4), run: 'elsewhere' })}\n`);
    return { mark, run: writer.run };
  };

  const { mark, run } = await crashedRun();
  assert.equal(JSON.parse((await readFile(rejectsPath, 'utf8')).split('\n')[0]).run, run, 'each line names its run');
  const resumed = await RejectsWriter.open(rejectsPath, mark);
  assert.deepEqual(resumed.resumed, { dropped: 1 });
  resumed.write(entry(3));
  await resumed.close();
  assert.deepEqual(await lines(), [1, 2, 4, 3]);

  // Edited before the mark, shorter than the mark, another file's mark: left whole.
  const edited = await crashedRun();
  await writeFile(rejectsPath, (await readFile(rejectsPath, 'utf8')).replace('"line":1', '"line":7'));
  const afterEdit = await RejectsWriter.open(rejectsPath, edited.mark);
  assert.equal(afterEdit.resumed.dropped, 0);
  assert.match(afterEdit.resumed.leftWhole, /changed before/);
  await afterEdit.close();
  assert.deepEqual(await lines(), [7, 2, 3, 4]);
  const shorter = await crashedRun();
  await writeFile(rejectsPath, '');
  const afterRotate = await RejectsWriter.open(rejectsPath, shorter.mark);
  assert.deepEqual(afterRotate.resumed, { dropped: 0 }, 'emptied by the user: nothing of the run is left to take out');
  await afterRotate.close();
  const other = await crashedRun();
  await (await RejectsWriter.open(rejectsPath, { ...other.mark, path: path.join(dir, 'other.ndjson') })).close();
  assert.deepEqual(await lines(), [1, 2, 3, 4]);
});

test('a line torn by a crash is dropped on resume, or ended without a mark; the next line starts its own', async () => {
  const { RejectsWriter } = await import('../../dist/checkpoint/rejects-file.js');
  const dir = await tempDir('cm-store-');
  const rejectsPath = path.join(dir, 'rejects.ndjson');
  /** @type {(line: number) => import('../../dist/checkpoint/rejects-file.js').RejectEntry} */
  const entry = (line) => ({
    entity: 'messages',
    file: 'm.ndjson',
    line,
    code: 'message.text.empty',
    message: 'no text',
  });
  const writer = await RejectsWriter.open(rejectsPath);
  writer.write(entry(1));
  await writer.persist();
  const { mark } = writer;
  writer.write(entry(2));
  await writer.close();
  // The crash cut the append of line 3 in half (appends go out in chunks).
  const whole = JSON.stringify({ run: writer.run, ...entry(3) });
  await appendFile(rejectsPath, whole.slice(0, 30));
  const resumed = await RejectsWriter.open(rejectsPath, mark);
  assert.deepEqual(resumed.resumed, { dropped: 1 });
  resumed.write(entry(2));
  await resumed.close();
  assert.deepEqual(
    (await readFile(rejectsPath, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).line),
    [1, 2],
  );
  // Without a mark (a fresh run) a torn last line is ended, not glued to the next.
  await appendFile(rejectsPath, whole.slice(0, 30));
  const fresh = await RejectsWriter.open(rejectsPath);
  fresh.write(entry(9));
  await fresh.close();
  const last = (await readFile(rejectsPath, 'utf8')).split('\n').filter(Boolean).at(-1);
  assert.equal(JSON.parse(last).line, 9);
});

test('a non-regular rejects file (/dev/null) takes lines and persists without fsync errors', async () => {
  const { RejectsWriter } = await import('../../dist/checkpoint/rejects-file.js');
  const writer = await RejectsWriter.open('/dev/null');
  writer.write({ entity: 'users', file: 'u.ndjson', line: 1, code: 'x', message: 'y' });
  await writer.persist();
  await writer.close();
});
