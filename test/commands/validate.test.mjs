// End to end: `validate` (and import's use of it) over fixtures/invalid/, the built CLI as a child
// process. The table of what each scenario must report is test/fixtures-invalid-cases.mjs.
import assert from 'node:assert/strict';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, test } from 'node:test';
import { RULES } from '../../dist/rules/index.js';
import { CASES, MAPPER_CODES, READER_CODES, SCENARIOS } from '../fixtures-invalid-cases.mjs';
import { FIXTURES, ROOT, readNdjson, runCli, sandbox, tempDir, writeConfig } from '../helpers.mjs';

const INVALID = path.join(FIXTURES, 'invalid');
const STACK = /\n\s+at /;

// validate is offline: the runs below name no target at all (empty variables count as unset).
const NO_TARGET = { MIGRATE_BASE_URL: '', MIGRATE_APP_ID: '', MIGRATE_REGION: '' };

const runs = new Map();
/** Runs `validate ...args` in a scenario folder once per argument list; later calls share the result. */
function validateIn(scenario, args = ['--json']) {
  const key = `${scenario}\0${args.join('\0')}`;
  if (!runs.has(key))
    runs.set(key, runCli(['validate', ...args], { cwd: path.join(INVALID, scenario), env: NO_TARGET }));
  return runs.get(key);
}

function parseJson(run) {
  assert.doesNotMatch(run.stderr, STACK, `stack trace on stderr:\n${run.stderr}`);
  try {
    return JSON.parse(run.stdout);
  } catch {
    assert.fail(`stdout is not one JSON document (exit ${run.code}):\n${run.stdout.slice(0, 2000)}\n${run.stderr}`);
  }
}

const keyOf = (p) => JSON.stringify([p.rule, p.file, p.line, p.entity, p.id ?? null, p.field ?? null, p.severity]);
const show = (p) => `${p.file}:${p.line} ${p.entity} ${p.id ?? '-'} ${p.field ?? '-'} ${p.rule} (${p.severity})`;

/** The report line of one problem, as the issue specifies it: `file:line: entity id: field: message [rule]`. */
function lineOf(p) {
  const who = p.entity.replace(/s$/, '') + (p.id ? ` ${p.id}` : '');
  return `${p.file}:${p.line}: ${who}: ${p.field ? `${p.field}: ` : ''}${p.message} [${p.rule}]`;
}

const copies = [];
after(() => Promise.all(copies.map((dir) => rm(dir, { recursive: true, force: true }))));

async function scenarioCopy(scenario, config = {}) {
  const dir = await tempDir('cm-invalid-');
  copies.push(dir);
  await cp(path.join(INVALID, scenario), dir, { recursive: true });
  const base = JSON.parse(await readFile(path.join(dir, '.migrate.config.json'), 'utf8'));
  await writeConfig(dir, { ...base, requestsPerMinute: 6000, ...config });
  return dir;
}

test(
  'fixtures/invalid: each expected problem is reported with its ' +
    'rule, file, line, entity, id, field and severity, and nothing else',
  async () => {
    const failures = [];
    for (const [scenario, expect] of Object.entries(SCENARIOS)) {
      const run = await validateIn(scenario);
      const report = parseJson(run);
      assert.equal(run.code, expect.exit, `${scenario}: exit code\n${run.stderr}`);
      assert.equal(report.recordsRead, expect.recordsRead, `${scenario}: records read`);
      assert.equal(report.ok, expect.exit === 0, `${scenario}: ok`);
      for (const [entity, counts] of Object.entries(report.byEntity)) {
        assert.equal(counts.skipped, expect.skipped?.[entity] ?? 0, `${scenario}: ${entity} skipped`);
      }
      const notChecked = expect.notChecked ?? [];
      assert.equal(
        report.notChecked.length,
        notChecked.length,
        `${scenario}: notChecked ${JSON.stringify(report.notChecked)}`,
      );
      notChecked.forEach((re, i) => {
        assert.match(report.notChecked[i], re);
      });

      const errors = report.problems.filter((p) => p.severity === 'error');
      assert.equal(report.errorCount, errors.length, `${scenario}: errorCount`);
      assert.equal(report.warningCount, report.problems.length - errors.length, `${scenario}: warningCount`);
      const byRule = {};
      for (const p of report.problems) {
        byRule[p.rule] = (byRule[p.rule] ?? 0) + 1;
        assert.ok(typeof p.message === 'string' && p.message.length > 0, `${scenario}: no message for ${show(p)}`);
      }
      assert.deepEqual(report.byRule, byRule, `${scenario}: byRule`);

      const left = new Map();
      for (const p of report.problems) left.set(keyOf(p), [...(left.get(keyOf(p)) ?? []), p]);
      for (const c of CASES.filter((x) => x.scenario === scenario)) {
        const same = left.get(keyOf(c)) ?? [];
        if (c.knownBug && c.currently === 'missing') {
          const there = report.problems.filter((p) => p.rule === c.rule && p.file === c.file && p.line === c.line);
          if (there.length > 0)
            failures.push(
              `${scenario}: known bug seems fixed, now reported: ${show(c)}; ` +
                `remove knownBug from its entry (${c.knownBug})`,
            );
          continue;
        }
        if (same.length === 0) {
          const near = report.problems.filter((p) => p.rule === c.rule).map(show);
          failures.push(
            `${scenario}: not reported: ${show(c)}` +
              (near.length ? `\n      same rule reported at: ${near.join('; ')}` : ''),
          );
          continue;
        }
        same.pop();
      }
      for (const rest of left.values())
        for (const p of rest) failures.push(`${scenario}: not in the table: ${show(p)}: ${p.message}`);
    }
    assert.equal(failures.length, 0, `\n${failures.join('\n')}`);
  },
);

test("every rule code (RULES, the mapper's, the readers') has a fixture that makes validate report it", async () => {
  // Codes the mapper and readers emit, read from the built code, so a new one cannot slip past the table.
  const built = [path.join(ROOT, 'dist/pipeline/map/map.js'), path.join(ROOT, 'dist/pipeline/map/map-steps.js')];
  for (const name of await readdir(path.join(ROOT, 'dist/sources')))
    if (name.endsWith('.js')) built.push(path.join(ROOT, 'dist/sources', name));
  const scanned = new Set();
  for (const file of built) {
    for (const m of (await readFile(file, 'utf8')).matchAll(/(?:rule: |problem\()'([a-z][a-z0-9.-]*)'/g))
      scanned.add(m[1]);
  }
  for (const code of [...MAPPER_CODES, ...READER_CODES])
    assert.ok(scanned.has(code), `${code} is no longer emitted by the mapper or a reader: update the table`);

  const all = new Set([...RULES.map((r) => r.code), ...MAPPER_CODES, ...READER_CODES, ...scanned]);
  const reported = new Set();
  for (const scenario of Object.keys(SCENARIOS))
    for (const p of parseJson(await validateIn(scenario)).problems) reported.add(p.rule);
  const severity = new Map(RULES.map((r) => [r.code, r.severity]));
  const onlyKnownBug = [];
  const missing = [];
  for (const code of all) {
    const cases = CASES.filter((c) => c.rule === code && c.currently !== 'extra');
    if (cases.length === 0) {
      missing.push(`${code}: no entry in test/fixtures-invalid-cases.mjs`);
    } else if (cases.every((c) => c.knownBug)) {
      onlyKnownBug.push(`${code}: ${cases[0].knownBug}`);
    } else if (!reported.has(code)) {
      missing.push(`${code}: no fixture makes validate report it`);
    }
  }
  assert.deepEqual(missing, []);
  for (const c of CASES) {
    if (severity.has(c.rule)) assert.equal(c.severity, severity.get(c.rule), `table severity of ${c.rule}`);
  }
  // Only id.mismatch may lack a live fixture, and only while its known bug stands.
  assert.ok(
    onlyKnownBug.every((s) => s.startsWith('id.mismatch:')),
    onlyKnownBug.join('\n'),
  );
});

test(
  'the valid fixtures/ report zero problems and exit 0, ' + 'in JSON and text, offline with no target configured',
  async () => {
    const [json, text] = await Promise.all([
      runCli(['validate', '--json'], { cwd: FIXTURES, env: NO_TARGET }),
      runCli(['validate'], { cwd: FIXTURES, env: NO_TARGET }),
    ]);
    const report = parseJson(json);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(report.problems, []);
    assert.equal(report.errorCount, 0);
    assert.equal(report.warningCount, 0);
    assert.equal(report.ok, true);
    assert.deepEqual(report.notChecked, []);
    assert.deepEqual(Object.keys(report.byEntity), ['users', 'groups', 'members', 'messages']);
    for (const counts of Object.values(report.byEntity)) assert.ok(counts.records > 0);
    // m0041 is soft-deleted and m0042 permanently deleted: both counted as skipped, neither checked.
    assert.equal(report.byEntity.messages.skipped, 2);
    assert.equal(text.code, 0, text.stderr);
    assert.doesNotMatch(text.stdout, /^(Errors|Warnings) \(/m);
    assert.match(text.stdout, new RegExp(`\\nOK: ${report.recordsRead} records read, no errors\\n$`));
  },
);

test('text report: one line a problem, errors and warnings apart, then counts per rule and per entity', async () => {
  const [textRun, jsonRun] = await Promise.all([validateIn('records', []), validateIn('records')]);
  const report = parseJson(jsonRun);
  assert.equal(textRun.code, 3);
  assert.doesNotMatch(textRun.stderr, STACK);
  const lines = textRun.stdout.split('\n');
  const errors = report.problems.filter((p) => p.severity === 'error');
  const warnings = report.problems.filter((p) => p.severity === 'warning');
  assert.ok(errors.length > 50 && warnings.length > 1);

  let i = lines.indexOf(`Errors (${errors.length}):`);
  assert.equal(i, 0, 'the report starts with the errors');
  assert.deepEqual(
    lines.slice(i + 1, i + 1 + errors.length),
    errors.map((p) => `  ${lineOf(p)}`),
  );
  i += 1 + errors.length;
  assert.equal(lines[i], `Warnings (${warnings.length}):`);
  assert.deepEqual(
    lines.slice(i + 1, i + 1 + warnings.length),
    warnings.map((p) => `  ${lineOf(p)}`),
  );
  i += 1 + warnings.length;

  assert.deepEqual(lines.slice(i, i + 2), ['', 'Problems by rule:']);
  i += 2;
  const byRule = {};
  for (; lines[i] !== ''; i++) {
    const m = /^ {2}(\S+) +(\d+)$/.exec(lines[i]);
    assert.ok(m, `rule count line: ${JSON.stringify(lines[i])}`);
    byRule[m[1]] = Number(m[2]);
  }
  assert.deepEqual(byRule, report.byRule);
  assert.deepEqual(lines.slice(i, i + 2), ['', 'By entity:']);
  i += 2;
  const byEntity = {};
  for (; lines[i] !== ''; i++) {
    const m = /^ {2}(\w+) +(\d+) records?, (\d+) errors?, (\d+) warnings?, (\d+) skipped$/.exec(lines[i]);
    assert.ok(m, `entity count line: ${JSON.stringify(lines[i])}`);
    byEntity[m[1]] = { records: +m[2], errors: +m[3], warnings: +m[4], skipped: +m[5] };
  }
  assert.deepEqual(byEntity, report.byEntity);
  assert.deepEqual(lines.slice(i), [
    '',
    `FAILED: ${report.recordsRead} records read, ${errors.length} errors, ${warnings.length} warnings`,
    '',
  ]);

  // Duplicates name where the id was first seen, across files too.
  const message = (file, line, rule) =>
    report.problems.find((p) => p.file === file && p.line === line && p.rule === rule)?.message;
  assert.match(message('users.csv', 8, 'id.duplicate'), /first seen at users\.csv:2\b/);
  assert.match(message('groups.json', 24, 'id.duplicate'), /first seen at groups\.json:3\b/);
  assert.match(message('messages_archive.csv', 2, 'id.case-collision'), /messages\.ndjson:2\b/);
});

test('--max-errors 3 stops after the third error, says so, and exits 3', async () => {
  const [full, json, text] = await Promise.all([
    validateIn('records'),
    validateIn('records', ['--json', '--max-errors', '3']),
    validateIn('records', ['--max-errors', '3']),
  ]);
  const all = parseJson(full);
  const early = parseJson(json);
  assert.equal(json.code, 3);
  assert.equal(early.stoppedEarly, true);
  assert.equal(all.stoppedEarly, false);
  assert.equal(early.errorCount, 3);
  assert.deepEqual(
    early.problems.filter((p) => p.severity === 'error'),
    all.problems.filter((p) => p.severity === 'error').slice(0, 3),
  );
  assert.ok(early.recordsRead < all.recordsRead / 2, `read ${early.recordsRead} of ${all.recordsRead}`);
  assert.equal(text.code, 3);
  assert.match(text.stdout, /^Errors \(3\):\n(  .*\[[a-z.-]+\]\n){3}/);
  assert.match(text.stdout, /\nstopped after 3 errors \(--max-errors\); the rest of the export was not checked\n/);
  assert.match(text.stdout, /\nFAILED: \d+ records read, 3 errors, /);
});

test('--max-errors with a value that is not a whole number is a usage error', async () => {
  for (const value of ['abc', '2x', '0']) {
    const run = await validateIn('records', ['--json', '--max-errors', value]);
    assert.equal(run.code, 2, `--max-errors ${value}: exit ${run.code}`);
    // --json answers even a usage error with one JSON document (issue 13).
    assert.deepEqual(Object.keys(JSON.parse(run.stdout)), ['error']);
    assert.match(run.stderr, /--max-errors.*must be a whole number/);
  }
});

test(
  'a reference whose target entity is not configured: ' + 'one note per kind of reference, no per-record problems',
  async () => {
    const [json, text] = await Promise.all([validateIn('unchecked'), validateIn('unchecked', [])]);
    const report = parseJson(json);
    // four members point at groups that do not exist anywhere: not one ref.member.group for them
    assert.equal(report.problems.filter((p) => p.rule.startsWith('ref.member.group')).length, 0);
    assert.deepEqual(
      report.problems.map((p) => p.rule),
      ['ref.member.user'],
    );
    assert.equal(report.warningCount, 0);
    assert.equal(report.notChecked.length, 1);
    assert.match(report.notChecked[0], /groups/);
    const notes = text.stdout.split('\n').filter((l) => l.startsWith('note: '));
    assert.deepEqual(notes, [`note: ${report.notChecked[0]}`]);
  },
);

test('deleted messages are skipped and not checked; --import-soft-deleted checks the soft-deleted one', async () => {
  const plain = parseJson(await validateIn('records'));
  const soft = parseJson(await validateIn('records', ['--json', '--import-soft-deleted']));
  const at33 = (r) =>
    r.problems
      .filter((p) => p.file === 'messages.ndjson' && p.line === 33)
      .map((p) => p.rule)
      .sort();
  assert.deepEqual(at33(plain), []);
  assert.equal(plain.byEntity.messages.skipped, 2);
  // Its sender u404 is missing, but held (and reported) at the first record naming it, members.ndjson:10.
  assert.deepEqual(at33(soft), ['message.text.empty']);
  assert.equal(soft.byEntity.messages.skipped, 1);
  assert.equal(
    soft.problems.filter((p) => p.line === 34 && p.file === 'messages.ndjson').length,
    0,
    'a permanently deleted message is never checked',
  );
});

test('import --dry-run gives the same report as validate, sends nothing and writes nothing', async () => {
  const sb = await sandbox();
  try {
    const dir = await scenarioCopy('records', { baseUrl: sb.url });
    const [vJson, dJson, vText, dText] = await Promise.all([
      runCli(['validate', '--json'], { cwd: dir }),
      runCli(['import', '--dry-run', '--json'], { cwd: dir }),
      runCli(['validate'], { cwd: dir }),
      runCli(['import', '--dry-run'], { cwd: dir }),
    ]);
    assert.equal(vJson.code, 3);
    assert.equal(dJson.code, 3);
    assert.equal(dText.code, 3);
    assert.ok(parseJson(vJson).errorCount > 50);
    assert.equal(dJson.stdout, vJson.stdout);
    assert.equal(dText.stdout, vText.stdout);
    assert.equal(sb.stats().requests, 0);
    // Only the run log, which validate appends to (docs/report.md): no checkpoint, no rejects file.
    const files = (await readdir(dir)).filter((f) => /checkpoint|rejects/.test(f) && !f.endsWith('.runs.ndjson'));
    assert.deepEqual(files, []);
    // like validate, the dry run needs no target and no key
    const offline = await runCli(['import', '--dry-run', '--json'], {
      cwd: path.join(INVALID, 'records'),
      env: NO_TARGET,
      apiKey: '',
    });
    assert.equal(offline.code, 3, offline.stderr);
    assert.equal(offline.stdout, (await validateIn('records')).stdout);
  } finally {
    await sb.close();
  }
});

test(
  'import --strict refuses to start while validate ' + 'finds errors, and starts when there are only warnings',
  async () => {
    const sb = await sandbox();
    try {
      const dir = await scenarioCopy('records', { baseUrl: sb.url });
      const run = await runCli(['import', '--strict'], { cwd: dir });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /STRICT_VALIDATION_FAILED/);
      assert.doesNotMatch(run.stderr, STACK);
      assert.equal(sb.stats().requests, 0);
      assert.deepEqual(await readNdjson(path.join(dir, 'migrate-rejects.ndjson')), []);

      const ok = await scenarioCopy('large-group', { baseUrl: sb.url });
      const started = await runCli(['import', '--strict', '--json'], { cwd: ok });
      assert.equal(started.code, 0, started.stderr);
      const stats = sb.stats();
      assert.equal(stats.perEntity.users.stored, 301);
      assert.equal(stats.perEntity.groups.stored, 2);
      assert.equal(stats.perEntity.members.stored, 601);
    } finally {
      await sb.close();
    }
  },
);

test('import sends only valid records; the rejects file holds exactly the invalid ones with their rule', async () => {
  const sb = await sandbox();
  try {
    const dir = await scenarioCopy('mixed', { baseUrl: sb.url });
    const run = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    assert.doesNotMatch(run.stderr, STACK);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.status, 'completed-with-rejects');
    const stats = sb.stats();
    const stored = sb.records();
    const expected = {
      users: ['ann', 'bob', 'dee'],
      groups: ['club', 'team'],
      members: ['club_member_dee', 'team_member_ann'],
      messages: ['x1', 'x2', 'x8'],
    };
    for (const [entity, ids] of Object.entries(expected)) {
      assert.equal(stats.perEntity[entity].stored, ids.length, `${entity} stored`);
      assert.equal(
        stats.perEntity[entity].rejected,
        0,
        `${entity}: the service refused a record validation let through`,
      );
      assert.deepEqual(Object.keys(stored[entity]).sort(), ids, entity);
    }
    // a warning does not stop a record; the unknown field is not sent
    assert.equal(stored.users.bob.nickname, undefined);
    assert.equal(summary.entities.messages.skipped, 2);

    const rejects = await readNdjson(path.join(dir, 'migrate-rejects.ndjson'));
    // A missing parent's line (x5 names zed, in no users file) is a hold, not a reject: x5 is blocked.
    const held = (c) => /^ref\.(member|message)\./.test(c.rule);
    const errors = CASES.filter((c) => c.scenario === 'mixed' && c.severity === 'error' && !held(c));
    assert.equal(summary.entities.messages.blocked, 1);
    assert.equal(stored.messages.x5, undefined);
    const where = (r) => `${r.entity} ${r.file}:${r.line} ${r.id ?? '-'} ${r.code ?? r.rule}`;
    assert.deepEqual(rejects.map(where).sort(), errors.map(where).sort());
    for (const r of rejects) {
      // a line that did not parse has no record to keep; every other reject carries its source record
      assert.equal(r.record === undefined, r.code.startsWith('input.'), where(r));
    }
    assert.equal(rejects.find((r) => r.id === 'x3').record.data.text, ' ', 'the record is kept as the export had it');
  } finally {
    await sb.close();
  }
});

test('--import-soft-deleted imports the soft-deleted message with its deletion time in data.metadata', async () => {
  const sb = await sandbox();
  try {
    const dir = await scenarioCopy('mixed', { baseUrl: sb.url });
    const run = await runCli(['import', '--json', '--import-soft-deleted'], { cwd: dir });
    assert.equal(run.code, 3, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.entities.messages.skipped, 1, 'the permanently deleted one is still skipped');
    const messages = sb.records().messages;
    assert.deepEqual(Object.keys(messages).sort(), ['x1', 'x2', 'x6', 'x8']);
    assert.equal(messages.x6.data.metadata.deletedAt, 1600005000);
    assert.equal(messages.x6.data.text, 'text of x6');
    assert.equal(messages.x6.deletedAt, undefined);
    assert.equal(messages.x8.data.metadata.deletedAt, undefined);
    assert.deepEqual(messages.x8.data.metadata, { pinned: true });
  } finally {
    await sb.close();
  }
});
