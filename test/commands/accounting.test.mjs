// Every record of the input is accounted for (issue 13, "Accounting"): over every scenario of
// fixtures/invalid/ and a folder of files broken on purpose (test/malformed-files.mjs), `validate`
// and `import` (against the sandbox) each read exactly the records the files hold as written,
// counted here without the tool's readers (test/accounting-count.mjs), except those a problem names
// as not read, with the lines it says it could not read. And import's summary adds up per entity:
// read = imported + already there + rejected + blocked (held by a user or group not in) + skipped + done earlier.
import assert from 'node:assert/strict';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { isFrom, writtenRecords } from '../accounting-count.mjs';
import { FIXTURES, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';
import { writeMalformedExport } from '../malformed-files.mjs';

const INVALID = path.join(FIXTURES, 'invalid');
const SCENARIOS = ['records', 'malformed', 'large-group', 'unchecked', 'mixed', 'written'];
const NO_TARGET = { MIGRATE_BASE_URL: '', MIGRATE_APP_ID: '', MIGRATE_REGION: '' };

const dirs = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A scenario in a folder of its own (import writes its state files there). */
async function scenarioDir(scenario) {
  const dir = await tempDir('cm-accounting-');
  dirs.push(dir);
  if (scenario === 'written') return writeMalformedExport(dir);
  await cp(path.join(INVALID, scenario), dir, { recursive: true });
  return dir;
}

/** The files an entity's source names (a path, a list, `*` globs), as the config writes them. */
async function sourceFiles(dir, spec) {
  const names = await readdir(dir);
  const files = [];
  for (const pattern of [spec.path].flat()) {
    const glob = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    files.push(...names.filter((name) => glob.test(name)).sort());
  }
  return files;
}

const JSON_BREAK = /^invalid JSON at line (\d+), column (\d+): .*; nothing from there on could be read(.*)$/;

/**
 * The problem that says a file was not read from some point on: where that is ([line, column]) and
 * the last line it says it covers (undefined when it cannot know: a broken gzip). A break that ends a
 * file without saying what it cost fails the test.
 */
function breakOf(p) {
  const json = JSON_BREAK.exec(p.message);
  if (json) {
    const span = /^: lines (\d+)-(\d+) \((\d+) lines\)$/.exec(json[3]);
    const rest = /^ \(the rest of line (\d+)\)$/.exec(json[3]);
    assert.ok(span || rest, `${p.file}:${p.line}: no lines in "${p.message}"`);
    if (span) assert.equal(+span[2] - +span[1] + 1, +span[3], p.message);
    return { from: [+json[1], +json[2]], to: span ? +span[2] : +rest[1] };
  }
  const gzip = /nothing from line (\d+) on could be read$/.exec(p.message);
  if (gzip) return { from: [+gzip[1], 1], to: undefined };
  const header = /nothing in the file could be read: (?:lines 1-(\d+) \(\d+ lines\)|line 1)$/.exec(p.message);
  if (header) return { from: [1, 1], to: +(header[1] ?? 1) };
  assert.doesNotMatch(p.message, /rest of the file|not read$/, `${p.file}:${p.line}: says not what it cost`);
  return undefined;
}

/** Per entity: records the files hold as written, and those of them the problems name as not read. */
async function writtenCounts(dir, problems) {
  const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  const counts = {};
  for (const [entity, spec] of Object.entries(config.sources)) {
    const c = { written: 0, notRead: 0 };
    for (const file of await sourceFiles(dir, spec)) {
      const { starts, lastLine } = writtenRecords(file, await readFile(path.join(dir, file)), entity);
      c.written += starts.length;
      for (const p of problems.filter((q) => q.file === file)) {
        const stop = breakOf(p);
        if (stop === undefined) continue;
        if (stop.to !== undefined) assert.equal(stop.to, lastLine, `${file}: the lines not read end at its last line`);
        c.notRead += starts.filter((s) => isFrom(s, stop.from)).length;
      }
    }
    counts[entity] = c;
  }
  return counts;
}

for (const scenario of SCENARIOS) {
  test(`validate reads every record of ${scenario} or names it in a problem with the lines it cost`, async () => {
    const dir = await scenarioDir(scenario);
    const run = await runCli(['validate', '--json'], { cwd: dir, env: NO_TARGET });
    const report = JSON.parse(run.stdout);
    const counts = await writtenCounts(dir, report.problems);
    for (const [entity, c] of Object.entries(counts)) {
      assert.ok(c.written > 0 || scenario === 'written', `${scenario} ${entity}: the count sees records`);
      assert.equal(report.byEntity[entity].records, c.written - c.notRead, `${scenario} ${entity}: records read`);
    }
    if (scenario === 'written') {
      // The count itself, checked once: the members' cut gzip ends where zlib's output was cut.
      const { members, ...rest } = counts;
      const expected = { written: 231, notRead: 0 };
      const groups = { written: 1509, notRead: 3 };
      assert.deepEqual(rest, { users: expected, groups, messages: { written: 1, notRead: 0 } });
      assert.ok(members.written > 1000 && members.notRead === 1, JSON.stringify(members));
    }
    const notRead = Object.values(counts).reduce((n, c) => n + c.notRead, 0);
    assert.equal(report.recordsRead, Object.values(counts).reduce((n, c) => n + c.written, 0) - notRead);
  });

  const sums = 'read = imported + already there + rejected + blocked + skipped + done earlier';
  test(`import of ${scenario}: ${sums}`, async () => {
    const dir = await scenarioDir(scenario);
    const server = await sandbox();
    try {
      const config = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
      await writeConfig(dir, { ...config, baseUrl: server.url, requestsPerMinute: 6000 });
      const run = await runCli(['import', '--json'], { cwd: dir });
      const summary = JSON.parse(run.stdout);
      assert.ok(summary.entities, `${scenario}: ${run.stdout} ${run.stderr}`);
      const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
      const counts = await writtenCounts(dir, rejects);
      for (const [entity, c] of Object.entries(summary.entities)) {
        const expected = counts[entity];
        assert.equal(c.read, expected.written - expected.notRead, `${scenario} ${entity}: records read`);
        const skipped = typeof c.skipped === 'number' ? c.skipped : Object.values(c.skipped).reduce((a, b) => a + b, 0);
        // Problems about a file, not a record (a header, a break that ends it) are listed in the
        // rejects file; they are not records, so they are taken out of `rejected` here.
        const fileProblems = rejects.filter((r) => r.entity === entity && isFileProblem(r)).length;
        assert.equal(c.fileProblems, fileProblems, `${scenario} ${entity}: file problems counted apart`);
        const sum = c.imported + c.alreadyPresent + c.rejected + c.blocked + skipped + c.resumed;
        assert.equal(sum, c.read, `${scenario} ${entity}: ${JSON.stringify(c)}, ${fileProblems} file problems`);
      }
    } finally {
      await server.close();
    }
  });
}

function isFileProblem(entry) {
  if (entry.record !== undefined) return false;
  if (['input.csv-header', 'input.json-shape', 'input.gzip'].includes(entry.code)) return true;
  return /nothing (from there on|in the file) could be read|at the end of the file/.test(entry.message);
}
