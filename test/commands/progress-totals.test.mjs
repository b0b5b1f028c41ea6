// The totals a CI log prints are exact: a phase's "N records to read" is what it then reads, and its
// last line ends at N/N, for import (CSV with line breaks inside quotes, NDJSON with blank lines, a
// JSON array) and for verify (an export that repeats a record, a service that holds more than it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fixtureWorkspace, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const ENTITIES = ['users', 'groups', 'members', 'messages'];

/** Per entity: the total its start line announced, and the done/total of its finished line. */
function phaseTotals(stderr) {
  const totals = {};
  for (const entity of ENTITIES) {
    const started = new RegExp(`\\[${entity}\\] started: (\\d+) records? to read$`, 'm').exec(stderr);
    const finished = new RegExp(`\\[${entity}\\] finished after [^:]+: (\\d+)/(\\d+) \\(100%\\)`, 'm').exec(stderr);
    assert.ok(started, `${entity}: no start line with a total in\n${stderr}`);
    assert.ok(finished, `${entity}: no finished line at 100% in\n${stderr}`);
    totals[entity] = { announced: Number(started[1]), done: Number(finished[1]), total: Number(finished[2]) };
  }
  return totals;
}

test('import in CI mode: each phase announces the records it then reads, and ends at N/N', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url);
  // Blank lines in NDJSON are no records; the fixture's CSV holds line breaks inside quoted fields.
  await appendFile(path.join(dir, 'members.ndjson'), '\n   \n\r\n');
  const ran = await runCli(['import', '--json'], { cwd: dir });
  assert.equal(ran.code, 0, ran.stderr);
  const summary = JSON.parse(ran.stdout);
  const totals = phaseTotals(ran.stderr);
  for (const entity of ENTITIES) {
    const read = summary.entities[entity].read;
    assert.deepEqual(totals[entity], { announced: read, done: read, total: read }, entity);
  }
  // The fixture's CSV messages hold 60 quoted line breaks: 420 lines, 360 records with the NDJSON file.
  assert.equal(totals.messages.announced, 360);
});

test('verify in CI mode: the total is the records looked for, and a full service ends it at N/N', async (t) => {
  const sb = await sandbox();
  t.after(() => sb.close());
  const dir = await fixtureWorkspace(sb.url, { retentionDays: 0 });
  // The export repeats a message exactly (import skips the copy; verify looks for it once).
  const messages = path.join(dir, 'messages.ndjson');
  const first = (await readFile(messages, 'utf8')).split('\n')[0];
  await appendFile(messages, `${first}\n`);
  const imported = await runCli(['import'], { cwd: dir });
  assert.equal(imported.code, 0, imported.stderr);
  // The service holds a user the export does not: an extra, no part of the export's progress.
  const other = await tempDir();
  await writeConfig(other, {
    baseUrl: sb.url,
    requestsPerMinute: 6000,
    sources: { users: { path: 'users.ndjson' } },
  });
  await appendFile(path.join(other, 'users.ndjson'), '{"uid": "someone-else", "name": "Someone Else"}\n');
  assert.equal((await runCli(['import'], { cwd: other })).code, 0);

  const verified = await runCli(['verify', '--json'], { cwd: dir });
  assert.equal(verified.code, 0, verified.stderr);
  const result = JSON.parse(verified.stdout);
  const totals = phaseTotals(verified.stderr);
  for (const entity of ENTITIES) {
    const { expected, present, extra } = result.entities[entity];
    assert.deepEqual(totals[entity], { announced: expected, done: present, total: expected }, entity);
    assert.equal(present, expected, `${entity}: all present`);
    if (entity === 'users') assert.equal(extra, 1);
  }
});
