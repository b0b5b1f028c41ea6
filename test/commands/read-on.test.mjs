// A run with nothing new reads nothing old: a message file acknowledged whole and not changed since is
// not read again, one that grew is read on from where the last reading ended, and one changed near
// its end or truncated is read whole. Each test blanks out lines in the middle of the file (same
// size, same first and last 64 KiB): a reading from the start counts fewer records, one that does not
// read them counts what the checkpoint holds.
import assert from 'node:assert/strict';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const COUNT = 2000;
const message = (i) => ({
  muid: `n${i}`,
  sender: 'alice',
  receiverType: 'user',
  receiver: 'bob',
  sentAt: 1_700_000_000 + i,
  category: 'message',
  type: 'text',
  data: { text: `night ${i}` },
});
const ndjson = (from, to) =>
  Array.from({ length: to - from }, (_, k) => `${JSON.stringify(message(from + k))}\n`).join('');
const csvHeader = 'muid,sender,receiverType,receiver,sentAt,category,type,data.text\n';
const csv = (from, to) =>
  Array.from({ length: to - from }, (_, k) => {
    const m = message(from + k);
    return `${[m.muid, m.sender, m.receiverType, m.receiver, m.sentAt, m.category, m.type, m.data.text].join(',')}\n`;
  }).join('');

/** Turns the whole lines between 40% and 60% of the file into blank ones of the same length; returns how many. */
async function blankMiddle(file) {
  const bytes = await readFile(file);
  let start = bytes.indexOf(0x0a, Math.floor(bytes.length * 0.4)) + 1;
  const stop = bytes.indexOf(0x0a, Math.floor(bytes.length * 0.6));
  let lines = 0;
  for (; start < stop; start++) {
    if (bytes[start] === 0x0a) lines++;
    else bytes[start] = 0x20;
  }
  await writeFile(file, bytes);
  return lines + 1;
}

async function workspace(sb, messages, content) {
  const dir = await tempDir();
  await writeFile(path.join(dir, 'users.csv'), 'uid,name\nalice,Alice\nbob,Bob\n');
  await writeFile(path.join(dir, messages), content);
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 1e9,
    sources: { users: { path: 'users.csv' }, messages: { path: messages } },
  });
  const run = async () => {
    const result = await runCli(['import', '--json'], { cwd: dir });
    assert.ok(result.code === 0 || result.code === 3, result.stderr);
    return JSON.parse(result.stdout);
  };
  return { dir, file: path.join(dir, messages), run };
}

test('a message file not changed since it was read to its end is not read again; counts as if it were', async () => {
  const sb = await sandbox();
  try {
    const { file, run } = await workspace(sb, 'messages.ndjson', ndjson(0, COUNT));
    assert.equal((await run()).entities.messages.imported, COUNT);
    const first = await run();
    assert.equal(first.entities.messages.unchangedFiles, 1);
    const blanked = await blankMiddle(file);
    assert.ok(blanked > 100, `${blanked} lines blanked`);
    const requests = sb.stats().requests;
    const s = await run();
    const m = s.entities.messages;
    assert.equal(m.read, COUNT, 'the blanked lines were not read: the checkpoint counts the file');
    assert.equal(m.resumed, COUNT);
    assert.equal(m.unchangedFiles, 1);
    assert.equal(m.imported + m.alreadyPresent + m.rejected + m.skipped, 0);
    // The same figures as the run before, which read nothing new either.
    assert.deepEqual({ ...s.totals, elapsedMs: 0 }, { ...first.totals, elapsedMs: 0 });
    assert.equal(s.entities.users.read, 2, 'users are read every run');
    assert.equal(sb.stats().requests, requests, 'nothing was sent');
  } finally {
    await sb.close();
  }
});

test('a message file that grew is read on from where the last reading ended: only the new records', async () => {
  const sb = await sandbox();
  try {
    const { dir, file, run } = await workspace(sb, 'messages.ndjson', ndjson(0, COUNT));
    await run();
    await blankMiddle(file);
    await appendFile(file, `${ndjson(COUNT, COUNT + 30)}{"muid": oops\n`);
    const s = await run();
    const m = s.entities.messages;
    assert.equal(m.read, COUNT + 31, 'the blanked lines were not read');
    assert.equal(m.resumed, COUNT);
    assert.equal(m.imported, 30);
    assert.equal(m.rejected, 1);
    assert.equal(m.alreadyPresent, 0, 'nothing old was sent again');
    const rejects = (await readFile(path.join(dir, 'migrate-rejects.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      rejects.map((r) => [r.line, r.ordinal]),
      [[COUNT + 31, COUNT + 30]],
      'the line and slot of a record read on are the file`s own',
    );
    assert.equal(sb.stats().perEntity.messages.stored, COUNT + 30);
  } finally {
    await sb.close();
  }
});

test('a CSV message file that grew is read on with its header: the new rows keep their field names', async () => {
  const sb = await sandbox();
  try {
    // Rows are shorter than NDJSON lines: more of them, so the middle lies beyond the first 64 KiB.
    const rows = 3 * COUNT;
    const { file, run } = await workspace(sb, 'messages.csv', csvHeader + csv(0, rows));
    await run();
    await blankMiddle(file);
    await appendFile(file, csv(rows, rows + 20));
    const m = (await run()).entities.messages;
    assert.equal(m.read, rows + 20, 'the blanked lines were not read');
    assert.equal(m.imported, 20);
    assert.equal(m.rejected, 0);
    const stored = sb.records().messages[`n${rows + 19}`];
    assert.equal(stored.data.text, `night ${rows + 19}`);
    assert.equal(stored.sender, 'alice');
  } finally {
    await sb.close();
  }
});

test('a message file edited near its end, or truncated, is read whole again', async () => {
  const sb = await sandbox();
  try {
    const { file, run } = await workspace(sb, 'messages.ndjson', ndjson(0, COUNT));
    await run();
    const blanked = await blankMiddle(file);
    // The same size and the same first 64 KiB: only the bytes before the end tell the edit.
    const bytes = await readFile(file);
    const at = bytes.lastIndexOf('night');
    bytes.write('NIGHT', at);
    await writeFile(file, bytes);
    let m = (await run()).entities.messages;
    assert.equal(m.read, COUNT - blanked, 'read whole: the blanked lines are gone');
    assert.equal(m.unchangedFiles, undefined);

    await writeFile(file, bytes.subarray(0, bytes.indexOf(0x0a, Math.floor(bytes.length * 0.9)) + 1));
    const s = await run();
    m = s.entities.messages;
    assert.ok(
      s.warnings.some((w) => /messages\.ndjson changed in place/.test(w)),
      JSON.stringify(s.warnings),
    );
    assert.ok(m.read < COUNT - blanked && m.read > 0, `read ${m.read}`);
    assert.equal(m.imported, 0);
  } finally {
    await sb.close();
  }
});
