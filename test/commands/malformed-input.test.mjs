// What validate and import do with malformed input (issue 13): a CSV quote that never closes costs
// its row, not the rows after it; a JSON syntax error names line and column, and the records around
// it are read; an empty file is a warning, and leaves the exit code and the rejects file alone.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { minifiedErrorColumn, minifiedGroups, openQuoteCsv } from '../malformed-files.mjs';

const NO_TARGET = { MIGRATE_BASE_URL: '', MIGRATE_APP_ID: '', MIGRATE_REGION: '' };
const dirs = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A folder holding `files`, its config naming each entity's file. */
async function exportDir(files, sources, config = {}) {
  const dir = await tempDir('cm-malformed-');
  dirs.push(dir);
  for (const [name, body] of Object.entries(files)) await writeFile(path.join(dir, name), body);
  await writeConfig(dir, { sources, requestsPerMinute: 6000, ...config });
  return dir;
}

async function validate(dir) {
  const run = await runCli(['validate', '--json'], { cwd: dir, env: NO_TARGET });
  return { code: run.code, report: JSON.parse(run.stdout) };
}

/** Imports `dir` into a fresh sandbox; `twice` runs the import a second time. */
async function importInto(dir, sources, twice = false) {
  const server = await sandbox();
  try {
    await writeConfig(dir, { sources, baseUrl: server.url, requestsPerMinute: 6000 });
    const runs = [];
    for (let i = 0; i < (twice ? 2 : 1); i++) {
      const run = await runCli(['import', '--json'], { cwd: dir });
      runs.push({ code: run.code, summary: JSON.parse(run.stdout) });
    }
    return { runs, records: server.records(), rejects: await readNdjson(path.join(dir, 'migrate-rejects.ndjson')) };
  } finally {
    await server.close();
  }
}

test(
  'a CSV quote that never closes costs its row: the ' + '216 rows after it are read, by validate and import',
  async () => {
    const sources = { users: { path: 'users.csv' } };
    const dir = await exportDir({ 'users.csv': openQuoteCsv() }, sources);
    const { report } = await validate(dir);
    const message =
      'a quote opened in this row never closes: line 14 could not be read as a row; reading goes on at line 15';
    assert.deepEqual(
      report.problems.map((p) => [p.file, p.line, p.rule, p.message]),
      [['users.csv', 14, 'input.csv-syntax', message]],
    );
    assert.equal(report.byEntity.users.records, 229);

    const { runs, records, rejects } = await importInto(dir, sources);
    assert.equal(runs[0].code, 3);
    const { read, imported, rejected } = runs[0].summary.entities.users;
    assert.deepEqual([read, imported, rejected], [229, 228, 1]);
    assert.ok(records.users.u229, 'the last row is imported');
    assert.deepEqual(
      rejects.map((r) => [r.line, r.code, r.message]),
      [[14, 'input.csv-syntax', message]],
    );
  },
);

test('a JSON syntax error names line and column; every record before it (and after it) is read', async () => {
  const minified = minifiedGroups('t', 1500, 1001);
  const three = minifiedGroups('s', 3, 2);
  const files = {
    'users.ndjson': `${JSON.stringify({ uid: 'u1', name: 'Ann' })}\n`,
    'groups-min.json': minified,
    'groups-three.json': three,
    'members.ndjson': `${JSON.stringify({ guid: 's1', uid: 'u1' })}\n${JSON.stringify({ guid: 's2', uid: 'u1' })}\n`,
  };
  const sources = {
    users: { path: 'users.ndjson' },
    groups: { path: 'groups-*.json' },
    members: { path: 'members.ndjson' },
  };
  const dir = await exportDir(files, sources);
  const { report } = await validate(dir);
  const at = (text) => `invalid JSON at line 1, column ${minifiedErrorColumn(text)}: Unexpected token ','`;
  assert.deepEqual(
    report.problems.map((p) => [p.file, p.line, p.rule]),
    [
      ['groups-min.json', 1, 'input.json-syntax'],
      ['groups-three.json', 1, 'input.json-syntax'],
    ],
    'no member is reported for a missing group',
  );
  assert.ok(report.problems[0].message.startsWith(at(minified)), report.problems[0].message);
  assert.ok(report.problems[1].message.startsWith(at(three)), report.problems[1].message);
  assert.equal(report.byEntity.groups.records, 1503);

  const { runs, records } = await importInto(dir, sources);
  const { groups, members } = runs[0].summary.entities;
  assert.deepEqual([groups.read, groups.imported, groups.rejected], [1503, 1501, 2]);
  assert.deepEqual([members.read, members.imported, members.rejected], [2, 2, 0]);
  assert.ok(records.groups.t1001 && records.groups.t1003 && records.groups.t1500 && records.groups.s2);
});

test('an empty file is a warning: validate exits 0, import exits 0 run after run and writes no rejects', async () => {
  const files = {
    'users.csv': 'uid,name\nu1,Ann\n',
    'messages-empty.ndjson': '',
    'messages-blank.csv': '\n \n',
  };
  const sources = { users: { path: 'users.csv' }, messages: { path: 'messages-*' } };
  const dir = await exportDir(files, sources);
  const { code, report } = await validate(dir);
  assert.equal(code, 0);
  assert.deepEqual([report.errorCount, report.warningCount], [0, 2]);
  assert.deepEqual(
    report.problems.map((p) => [p.file, p.rule, p.severity]),
    [
      ['messages-blank.csv', 'input.empty-file', 'warning'],
      ['messages-empty.ndjson', 'input.empty-file', 'warning'],
    ],
  );

  const { runs, rejects } = await importInto(dir, sources, true);
  for (const { code, summary } of runs) {
    assert.equal(code, 0);
    assert.equal(summary.status, 'completed');
    const empty = summary.warnings.filter((w) => w.includes('empty'));
    assert.deepEqual(empty, ['messages-blank.csv: file is empty', 'messages-empty.ndjson: file is empty']);
    assert.equal(summary.totals.rejected, 0);
  }
  assert.deepEqual(rejects, []);
});
