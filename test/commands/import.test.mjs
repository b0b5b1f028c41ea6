// End to end: the built CLI, as a child process, against the sandbox on a loopback port.
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { API_KEY, fixtureWorkspace, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const FIXTURE_COUNTS = { users: 40, groups: 8, members: 65, messages: 358 };

test('imports every fixture record exactly once, in the contract shapes', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    const run = await runCli(['import'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    const stats = sb.stats();
    for (const [entity, n] of Object.entries(FIXTURE_COUNTS)) {
      assert.equal(stats.perEntity[entity].stored, n, `${entity} stored`);
      assert.equal(stats.perEntity[entity].alreadyExists, 0, `${entity} sent twice`);
      assert.equal(stats.perEntity[entity].rejected, 0, `${entity} refused by the service`);
    }
    assert.ok(stats.maxRecordsInARequest <= 50);
    const records = sb.records();
    // members: keyed <guid>_member_<uid>, memberId filled in; timestamps as integer seconds
    const member = records.members.g01_member_u001;
    assert.equal(member.memberId, 'g01_member_u001');
    assert.equal(member.joinedAt, 1600200000);
    // users from CSV: JSON-text fields became objects and arrays, BOM dropped from the first header
    const user = records.users.u002;
    assert.equal(user.name, 'José García, Jr.');
    assert.deepEqual(user.tags, ['team-1', '🌍']);
    assert.equal(user.metadata.department, 'R&D');
    assert.equal(user.createdAt, 1600003600);
    // groups from JSON: ISO time to seconds
    assert.equal(records.groups.g01.createdAt, 1600100000);
    assert.equal(records.groups.g03.password, 's3cret-pass');
    // messages: NDJSON attachments kept; CSV dotted columns nested, quoted newline kept, ISO time to seconds
    assert.equal(records.messages.m0006.data.attachments[0].mimeType, 'image/jpeg');
    const archived = records.messages.m0302;
    assert.match(archived.data.text, /^archived, "quoted"\nsecond line m0302$/);
    assert.deepEqual(archived.data.metadata, { archive: true });
    assert.equal(typeof archived.sentAt, 'number');
    // deleted messages are not sent
    assert.equal(records.messages.m0041, undefined);
    assert.equal(records.messages.m0042, undefined);
    // The summary: a column per entity, a row per figure.
    const table = run.stdout.split('\n');
    const header = table
      .find((l) => /^ +users +groups +members +messages +total$/.test(l))
      .trim()
      .split(/ +/);
    const cells = (row) =>
      table
        .find((l) => l.startsWith(`${row}  `))
        .slice(row.length)
        .trim()
        .split(/ +/);
    const messages = (row) => Number(cells(row)[header.indexOf('messages')]);
    assert.deepEqual(['read', 'imported', 'already there', 'rejected', 'skipped'].map(messages), [360, 358, 0, 0, 2]);
  } finally {
    await sb.close();
  }
});

test('the API key never appears in output, checkpoint or rejects, and --json prints one summary object', async () => {
  const sb = await sandbox({ faults: { poisonIdPattern: '^m0010$' } });
  try {
    const dir = await fixtureWorkspace(sb.url);
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.status, 'completed-with-rejects');
    assert.equal(summary.entities.messages.rejected, 1);
    const files = await readdir(dir);
    for (const name of files) {
      const text = await readFile(path.join(dir, name), 'utf8').catch(() => '');
      if (name === '.migrate.config.json') continue;
      assert.ok(!text.includes(API_KEY), `key found in ${name}`);
    }
    assert.ok(!run.stdout.includes(API_KEY) && !run.stderr.includes(API_KEY));
    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    assert.deepEqual(
      rejects.map((r) => r.id),
      ['m0010'],
    );
    assert.equal(rejects[0].file, 'messages.ndjson');
    assert.equal(rejects[0].line, 10);
    assert.equal(rejects[0].record.muid, 'm0010');
  } finally {
    await sb.close();
  }
});

test('a wrong key stops the run at once with the fatal exit code and a clear message', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    const run = await runCli(['import'], { cwd: dir, apiKey: 'wrong-key-1234' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /refused the API key \(401 AUTH_ERR_APIKEY_NOT_FOUND\)/);
    assert.ok(!run.stderr.includes('wrong-key-1234'));
    assert.ok(sb.stats().requests <= 4, 'no retries after 401');
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await sb.close();
  }
});

test('re-running after a finished import sends nothing and counts everything as done earlier', async () => {
  const sb = await sandbox();
  try {
    const dir = await fixtureWorkspace(sb.url);
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    const before = sb.stats().requests;
    const again = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(sb.stats().requests, before);
    const s = JSON.parse(again.stdout);
    assert.equal(s.entities.users.resumed, 40);
    assert.equal(s.totals.imported, 0);
    // --fresh starts over: everything is sent again and comes back already-exists
    const fresh = await runCli(['import', '--fresh', '--json'], { cwd: dir });
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(JSON.parse(fresh.stdout).entities.users.alreadyPresent, 40);
  } finally {
    await sb.close();
  }
});

test('import: duplicate muids are imported once, rejected where they repeat, in the same batch or later', async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    const users = [
      { uid: 'u1', name: 'Ann' },
      { uid: 'u2', name: 'Bob' },
    ];
    const msg = (muid, i) => ({
      muid,
      sender: 'u1',
      receiverType: 'user',
      receiver: 'u2',
      sentAt: 1_600_000_000 + i,
      category: 'message',
      type: 'text',
      data: { text: `hello ${i}` },
    });
    // Lines 1-120: m1 repeated at line 3 (same batch), M2 at line 4 against m2 at line 2 (case, same
    // batch), m5 repeated at line 110 (a later batch, sent once the first batch has been answered).
    const ids = ['m1', 'm2', 'm1', 'M2', 'm5'];
    for (let i = ids.length; i < 120; i++) ids.push(i === 109 ? 'm5' : `n${i}`);
    await writeFile(path.join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n'));
    await writeFile(path.join(dir, 'messages.ndjson'), ids.map((id, i) => JSON.stringify(msg(id, i))).join('\n'));
    await writeConfig(dir, {
      baseUrl: sb.url,
      concurrency: 1,
      requestsPerMinute: 6000,
      sources: { users: { path: 'users.ndjson' }, messages: { path: 'messages.ndjson' } },
    });
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    const unique = new Set(ids.map((id) => id.toLowerCase()));
    assert.equal(sb.stats().perEntity.messages.stored, unique.size);
    assert.deepEqual(Object.keys(sb.records().messages).sort(), [...unique].sort());
    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    assert.deepEqual(
      rejects.map((r) => `${r.line} ${r.id} ${r.code}`),
      ['3 m1 id.duplicate', '4 M2 id.case-collision', '110 m5 id.duplicate'],
    );
    assert.match(rejects[0].message, /first seen at messages\.ndjson:1/);
    assert.equal(JSON.parse(run.stdout).entities.messages.imported, unique.size);
  } finally {
    await sb.close();
  }
});
