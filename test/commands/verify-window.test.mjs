// A verify with a window (`--since`) does not read a message file import would not read again
// (unchanged since a reading to its end) whose messages are all older than the window. Each test
// rewrites lines in the middle of the old file after the import (same size, same first and last
// 64 KiB) so that their messages fall inside the window: a verify that read it would expect them and
// find them different; one that does not read it finds the window as it is.
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { messageLine, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

// Long lines: the old file's middle lies beyond its first and last 64 KiB with few messages.
const OLD = 400;
const NEW = 20;
const OLD_SENT = 1_700_000_000;
const NEW_SENT = 1_760_000_000;
const SINCE = 1_750_000_000;

/** A message from alice to bob, with its NDJSON line. */
const message = (muid, sentAt) => {
  const text = `said ${muid} ${'.'.repeat(500)}`;
  const line = messageLine(0, { muid, receiverType: 'user', receiver: 'bob', sentAt, data: { text } });
  return { muid, sentAt, line: `${line}\n` };
};
const lines = (messages) => messages.map((m) => m.line).join('');
const oldMessages = Array.from({ length: OLD }, (_, i) => message(`o${i}`, OLD_SENT + i));
const newMessages = Array.from({ length: NEW }, (_, i) => message(`w${i}`, NEW_SENT + i));

/** Moves the messages of the lines between 40% and 60% of the file into the window, in place; returns how many. */
async function moveMiddleIntoWindow(file) {
  const text = await readFile(file, 'latin1');
  const from = text.indexOf('\n', Math.floor(text.length * 0.4)) + 1;
  const to = text.indexOf('\n', Math.floor(text.length * 0.6));
  let moved = 0;
  const middle = text.slice(from, to).replace(/"sentAt":1700/g, () => {
    moved++;
    return '"sentAt":1760';
  });
  await writeFile(file, text.slice(0, from) + middle + text.slice(to), 'latin1');
  return moved;
}

async function workspace(t, sandboxOptions = {}) {
  const sb = await sandbox(sandboxOptions);
  t.after(() => sb.close());
  const dir = await tempDir('cm-window-');
  await writeFile(path.join(dir, 'users.csv'), 'uid,name\nalice,Alice\nbob,Bob\n');
  await writeFile(path.join(dir, '2023.ndjson'), lines(oldMessages));
  await writeFile(path.join(dir, '2025.ndjson'), lines(newMessages));
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: { users: { path: 'users.csv' }, messages: { path: ['2023.ndjson', '2025.ndjson'] } },
  });
  const cli = async (args) => {
    const result = await runCli([...args, '--json'], { cwd: dir });
    return { ...result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
  };
  const imported = await cli(['import']);
  assert.equal(imported.code, 0, imported.stderr);
  const checkpoint = async () => JSON.parse(await readFile(path.join(dir, '.migrate-checkpoint.json'), 'utf8'));
  return { sb, dir, cli, checkpoint, old: path.join(dir, '2023.ndjson') };
}

const figures = ({ expected, present, missing, different, skipped }) => ({
  expected,
  present,
  missing,
  different,
  skipped,
});

test('verify --since leaves an unchanged message file older than the window unread; without, it is read', async (t) => {
  const ws = await workspace(t);
  const progress = (await ws.checkpoint()).files;
  assert.equal(progress['messages:2023.ndjson'].newestSentAt, OLD_SENT + OLD - 1, 'the import kept the newest');
  assert.equal(progress['messages:2025.ndjson'].newestSentAt, NEW_SENT + NEW - 1);
  const moved = await moveMiddleIntoWindow(ws.old);
  assert.ok(moved > 50, `${moved} messages moved`);

  const windowed = await ws.cli(['verify', '--since', String(SINCE)]);
  assert.equal(windowed.code, 0, windowed.stdout + windowed.stderr);
  const m = windowed.json.entities.messages;
  // The window's messages, all there; the old file's none, its messages not counted as skipped either.
  assert.deepEqual(figures(m), { expected: NEW, present: NEW, missing: 0, different: 0, skipped: 0 });
  assert.equal(windowed.json.filesNotRead, 1);
  assert.equal(m.extra, 0, "the service's older messages are not listed (fromTimestamp)");
  assert.equal(windowed.json.entities.users.present, 2, 'users are read whole');
  const text = await runCli(['verify', '--since', String(SINCE)], { cwd: ws.dir });
  assert.equal(text.code, 0, text.stdout);
  assert.match(text.stdout, /^note: 1 message file older than the window not read: /m);

  // Without a window every file is read: the moved messages are the export's, and not the service's.
  const whole = await ws.cli(['verify']);
  assert.equal(whole.code, 3, whole.stderr);
  assert.deepEqual(figures(whole.json.entities.messages), {
    expected: OLD + NEW,
    present: OLD + NEW - moved,
    missing: 0,
    different: moved,
    skipped: 0,
  });
  assert.equal(whole.json.filesNotRead, undefined);
});

test('a file grown since the import is read by a windowed verify; imported, its newest is the new one', async (t) => {
  const ws = await workspace(t);
  await moveMiddleIntoWindow(ws.old);
  const late = message('late', NEW_SENT + 500);
  await appendFile(ws.old, lines([late]));

  const grown = await ws.cli(['verify', '--since', String(SINCE)]);
  assert.equal(grown.code, 3, grown.stderr);
  const m = grown.json.entities.messages;
  assert.equal(grown.json.filesNotRead, undefined, 'the grown file was read');
  // Read, the moved messages are expected in the window; the service holds them before it, so they are
  // not among the messages it lists from the window's start.
  assert.ok(m.missing > 50, 'its moved messages were read');
  assert.deepEqual(
    m.missingRecords.filter((r) => r.id === 'late'),
    [{ id: 'late', file: '2023.ndjson', line: OLD + 1 }],
  );

  // Put back as it was, with the late one: the import reads it on and keeps the newest of all its messages.
  await writeFile(ws.old, lines([...oldMessages, late]));
  const imported = await ws.cli(['import']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal((await ws.checkpoint()).files['messages:2023.ndjson'].newestSentAt, late.sentAt);
  const after = await ws.cli(['verify', '--since', String(SINCE)]);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(after.json.filesNotRead, undefined, 'its newest message is in the window: read');
  assert.equal(after.json.entities.messages.expected, NEW + 1);
});

test('a grown file read on from its end keeps the newest of the old and the new part', async (t) => {
  const ws = await workspace(t);
  const later = message('later', OLD_SENT + OLD + 10);
  await appendFile(ws.old, lines([later]));
  const imported = await ws.cli(['import']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.json.entities.messages.resumed, OLD + NEW, 'read on from the end, not from the start');
  assert.equal((await ws.checkpoint()).files['messages:2023.ndjson'].newestSentAt, later.sentAt);
  // An older record appended: the newest stays the one read before.
  await appendFile(ws.old, lines([message('earlier', OLD_SENT - 10)]));
  assert.equal((await ws.cli(['import'])).code, 0);
  assert.equal((await ws.checkpoint()).files['messages:2023.ndjson'].newestSentAt, later.sentAt);
  // A window that starts just after it leaves the file unread; one that holds it reads it.
  assert.equal((await ws.cli(['verify', '--since', String(later.sentAt + 1)])).json.filesNotRead, 1);
  const holding = await ws.cli(['verify', '--since', String(later.sentAt)]);
  assert.equal(holding.json.filesNotRead, undefined);
  assert.equal(holding.json.entities.messages.expected, NEW + 1);
});

test('a message of the window missing on the service is named right while an old file is left unread', async (t) => {
  const ws = await workspace(t, { faults: { losePattern: '^w5$' } });
  await moveMiddleIntoWindow(ws.old);
  const run = await ws.cli(['verify', '--since', String(SINCE)]);
  assert.equal(run.code, 3, run.stderr);
  const m = run.json.entities.messages;
  assert.equal(run.json.filesNotRead, 1);
  assert.deepEqual(figures(m), { expected: NEW, present: NEW - 1, missing: 1, different: 0, skipped: 0 });
  assert.deepEqual(m.missingRecords, [{ id: 'w5', file: '2025.ndjson', line: 6 }]);
});
