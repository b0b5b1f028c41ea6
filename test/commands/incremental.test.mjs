// Nightly CI runs over a growing export: only what is new is sent, and each record arrives once.
import assert from 'node:assert/strict';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const message = (i, sentAt = 1_700_000_000 + i) =>
  JSON.stringify({
    muid: `n${i}`,
    sender: 'alice',
    receiverType: 'user',
    receiver: 'bob',
    sentAt,
    category: 'message',
    type: 'text',
    data: { text: `night ${i}` },
  });
const lines = (from, to) => Array.from({ length: to - from }, (_, k) => `${message(from + k)}\n`).join('');

const NIGHTLY_RUNS =
  'three nightly runs over a growing export: appended rows, a new file on the glob, a file rewritten in place';

test(NIGHTLY_RUNS, async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'users.csv'), 'uid,name\nalice,Alice\nbob,Bob\n');
    await writeFile(path.join(dir, 'messages-1.ndjson'), lines(0, 120));
    const state = path.join(dir, 'ci-cache', 'state.json');
    await writeConfig(dir, {
      baseUrl: sb.url,
      requestsPerMinute: 1e9,
      sources: { users: { path: 'users.csv' }, messages: { path: 'messages-*.ndjson' } },
    });
    const nightly = async () => {
      const run = await runCli(['import', '--json', '--checkpoint', state], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout);
    };
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.dirname(state));

    // Night 1: everything is new.
    let s = await nightly();
    assert.equal(s.entities.messages.imported, 120);

    // Night 2: rows appended to the file and a CSV user appended; a new file matches the glob.
    await appendFile(path.join(dir, 'messages-1.ndjson'), lines(120, 170));
    await appendFile(path.join(dir, 'users.csv'), 'carol,Carol\n');
    await writeFile(path.join(dir, 'messages-2.ndjson'), lines(1000, 1030));
    s = await nightly();
    assert.equal(s.entities.messages.imported, 80);
    assert.equal(s.entities.messages.alreadyPresent, 0, 'nothing old was sent again');
    assert.equal(s.entities.messages.resumed, 120);
    assert.equal(s.entities.users.imported, 1);

    // Night 3: the second file is rewritten in place (same rows reordered, plus new ones): read again;
    // the old rows come back already-exists, only the new ones are imported.
    const rewritten = [...Array.from({ length: 30 }, (_, k) => message(1029 - k)), message(2000), message(2001)];
    await writeFile(path.join(dir, 'messages-2.ndjson'), `${rewritten.join('\n')}\n`);
    s = await nightly();
    assert.ok(
      s.warnings.some((w) => /messages-2\.ndjson changed in place/.test(w)),
      JSON.stringify(s.warnings),
    );
    assert.equal(s.entities.messages.imported, 2);
    assert.equal(s.entities.messages.alreadyPresent, 30);

    const stats = sb.stats();
    assert.equal(stats.perEntity.messages.stored, 202);
    assert.equal(stats.perEntity.users.stored, 3);
    assert.equal(stats.perEntity.users.alreadyExists, 0);
  } finally {
    await sb.close();
  }
});

test('--since imports only messages sent at or after the time; the rest are counted as skipped', async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'messages.ndjson'), lines(0, 100));
    await writeConfig(dir, {
      baseUrl: sb.url,
      requestsPerMinute: 1e9,
      sources: { messages: { path: 'messages.ndjson' } },
    });
    const run = await runCli(['import', '--json', '--since', new Date((1_700_000_000 + 60) * 1000).toISOString()], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    const s = JSON.parse(run.stdout);
    assert.equal(s.entities.messages.imported, 40);
    assert.equal(s.entities.messages.skipped, 60);
    assert.equal(sb.stats().perEntity.messages.stored, 40);
    assert.ok(sb.records().messages.n60 && !sb.records().messages.n59);
  } finally {
    await sb.close();
  }
});
