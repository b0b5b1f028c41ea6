// The run log and the report over a real migration: an import against a sandbox that answers some
// requests with 429, stopped by SIGINT, resumed, with rejected records, then validate and verify;
// the report's overview equals the sum of the runs' --json summaries.
import assert from 'node:assert/strict';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  API_KEY,
  collect,
  generatedWorkspace,
  readNdjson,
  runCli,
  sandbox,
  spawnCli,
  tempDir,
  waitForRequests,
  writeConfig,
  writeManyFilesExport,
} from '../helpers.mjs';

/** Messages the tool's own checks refuse (empty text, twice) or hold back (a sender nobody exported). */
const BAD_MESSAGES = [
  { muid: 'bad1', sender: 'user1', receiverType: 'group', receiver: 'grp0', sentAt: 1_650_100_000, data: { text: '' } },
  {
    muid: 'bad2',
    sender: 'user2',
    receiverType: 'group',
    receiver: 'grp1',
    sentAt: 1_650_100_001,
    data: { text: ' ' },
  },
  {
    muid: 'bad3',
    sender: 'ghost',
    receiverType: 'group',
    receiver: 'grp1',
    sentAt: 1_650_100_002,
    data: { text: 'x' },
  },
].map((m) => ({ category: 'message', type: 'text', ...m }));

/** The figures the page carries: `data-figure="users.imported"` -> its number (or text). */
function figuresOf(html) {
  const out = {};
  for (const m of html.matchAll(/data-figure="([^"]+)"[^>]*>([^<]*)</g)) {
    const text = m[2].trim();
    const number = Number(text.replaceAll(',', ''));
    out[m[1]] = text !== '' && Number.isFinite(number) ? number : text;
  }
  return out;
}

/** The sum over summaries of one figure of one entity. */
const sum = (summaries, entity, key) => summaries.reduce((n, s) => n + (s.entities[entity]?.[key] ?? 0), 0);

test('report: 429s, Ctrl+C, resume, rejects, validate and verify; overview = sum of the --json summaries', async () => {
  // msg42 is answered success but not stored: what verify is there to find. The latency is for Ctrl+C to
  // land mid-messages; the 429s ask for no wait.
  const faults = { spurious429: 0.12, retryAfterMs: 0, losePattern: '^msg42$' };
  const sb = await sandbox({ latencyMs: 120, seed: 7, faults });
  try {
    const { dir } = await generatedWorkspace(sb, { users: 100, groups: 4, membersPerGroup: 10, messages: 1500 });
    await appendFile(path.join(dir, 'messages.ndjson'), BAD_MESSAGES.map((m) => `${JSON.stringify(m)}\n`).join(''));
    const child = spawnCli(['import', '--json'], { cwd: dir });
    const first = collect(child);
    await waitForRequests(sb, 3, { entity: 'messages', timeoutMs: 60_000 });
    child.kill('SIGINT');
    const stopped = await first;
    assert.equal(stopped.code, 130, stopped.stderr);
    const summaryFile = path.join(dir, 'step-summary.md');
    const resumed = await runCli(['import', '--json'], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summaryFile } });
    assert.equal(resumed.code, 3, resumed.stderr);
    const summaries = [JSON.parse(stopped.stdout), JSON.parse(resumed.stdout)];
    const validated = await runCli(['validate', '--json'], { cwd: dir });
    assert.equal(validated.code, 3, validated.stderr);
    const verified = await runCli(['verify', '--rest-requests-per-minute', '100000', '--retention-days', '0'], {
      cwd: dir,
    });
    assert.equal(verified.code, 3, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /message msg42: not on the service/);

    const log = await readNdjson(path.join(dir, '.migrate-checkpoint.runs.ndjson'));
    assert.equal((await stat(path.join(dir, '.migrate-checkpoint.runs.ndjson'))).mode & 0o777, 0o600);
    const types = log.map((l) => l.type);
    for (const type of ['run-start', 'phase-start', 'phase-end', 'sample', 'interrupt', 'resume', 'run-end'])
      assert.ok(types.includes(type), `the run log has a ${type} line: ${types.join(' ')}`);
    assert.equal(log.find((l) => l.type === 'interrupt').signal, 'SIGINT');
    const ends = log.filter((l) => l.type === 'run-end' && l.summary);
    assert.deepEqual(
      ends.map((l) => l.summary),
      summaries,
      'each import run ends with its --json summary',
    );
    assert.ok(summaries[0].totals.retries + summaries[1].totals.retries > 0, 'the 429s were retried');
    assert.ok(
      log.some((l) => l.type === 'sample' && l.rateLimited > 0),
      'a sample counted the 429s',
    );
    assert.ok(ends[1].rejectsByCode['message.text.empty'] >= 1 || ends[0].rejectsByCode['message.text.empty'] >= 1);
    const text = JSON.stringify(log);
    assert.ok(!text.includes(API_KEY), 'the API key is not in the run log');
    // A line a second at most, plus a line per phase and the run's own few.
    for (const start of log.filter((l) => l.type === 'run-start')) {
      const own = log.filter((l) => l.run === start.run);
      const seconds = (own.at(-1).t - start.t) / 1000;
      const phases = own.filter((l) => l.type.startsWith('phase-')).length;
      assert.ok(own.length <= Math.ceil(seconds) + phases + 5, `${own.length} lines in ${seconds} s`);
    }

    const report = path.join(dir, 'report.html');
    const made = await runCli(['report', '--json', '--out', report], { cwd: dir });
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(JSON.parse(made.stdout), {
      report,
      status: 'open',
      statusLine: 'Not complete: 2 open rejects and 1 record blocked by a user or group not in.',
    });
    const html = await readFile(report, 'utf8');
    assert.ok(!html.includes(API_KEY));
    assert.doesNotMatch(html, /<script|<link|https?:\/\/(?!127\.0\.0\.1)[a-z]/i, 'no script, no external resource');
    const figures = figuresOf(html);
    for (const entity of ['users', 'groups', 'members', 'messages']) {
      for (const key of ['imported', 'alreadyPresent', 'skipped', 'requests', 'retries'].slice(0, 3))
        assert.equal(figures[`${entity}.${key}`], sum(summaries, entity, key), `${entity}.${key}`);
      assert.equal(figures[`${entity}.open`], summaries[1].entities[entity].rejected, `${entity}.open`);
      assert.equal(figures[`${entity}.notYetSent`], 0, `${entity}.notYetSent`);
      assert.equal(figures[`${entity}.inExport`], summaries[1].entities[entity].read, `${entity}.inExport`);
    }
    for (const key of ['imported', 'alreadyPresent', 'skipped', 'requests', 'retries'])
      assert.equal(figures[`total.${key}`], summaries[0].totals[key] + summaries[1].totals[key], `total.${key}`);
    const open = summaries[1].totals.rejected + summaries[1].totals.fileProblems;
    assert.equal(open, 2);
    assert.equal(figures.status, `Not complete: ${open} open rejects and 1 record blocked by a user or group not in.`);
    assert.equal(figures.runs, 4);
    assert.equal(figures.interruptions, 1);
    assert.equal(figures['rejects.message.text.empty.open'], 2);
    assert.equal(figures['rejects.ref.message.sender.open'], undefined, 'a missing sender holds, it is no reject');
    assert.equal(figures['messages.blocked'], 1);
    assert.match(html, /data-blocked="users:ghost"><code>messages\.ndjson:1503<\/code> user ghost, not in the export/);
    assert.match(html, /messages\.ndjson:1501/, 'an example names file:line');
    assert.equal(figures['verify.messages.missing'], 1);
    assert.equal(figures['verify.users.missing'], 0);
    assert.equal(figures['validate.errors'], JSON.parse(validated.stdout).errorCount);
    for (const chart of ['requests / min', 'records / min', '429s / min', 'retries / min', 'messages'])
      assert.match(html, new RegExp(`data-series="${chart}" data-points="[1-9]`), `${chart} drew points`);

    const md = await runCli(['report', '--format', 'md', '--out', path.join(dir, 'r.md')], { cwd: dir });
    assert.equal(md.code, 0, md.stderr);
    const markdown = await readFile(path.join(dir, 'r.md'), 'utf8');
    assert.match(markdown, /\*\*Not complete: 2 open rejects and 1 record blocked by a user or group not in\.\*\*/);
    assert.match(markdown, /\| `message\.text\.empty` \| 2 \|/);
    // `--out -`: the report itself on stdout, the same text, and no file named "-".
    const piped = await runCli(['report', '--format', 'md', '--out', '-'], { cwd: dir });
    assert.equal(piped.stdout, markdown);
    await assert.rejects(stat(path.join(dir, '-')));
    const step = await readFile(summaryFile, 'utf8');
    assert.match(step, /^## Migration report/);
    assert.match(
      step,
      /Not complete: 2 open rejects and 1 record blocked/,
      'import appended the overview to GITHUB_STEP_SUMMARY',
    );
  } finally {
    await sb.close();
  }
});

test('run log: a line cut short by a crash is skipped on read and ended before the next line', async () => {
  const sb = await sandbox();
  try {
    const { dir } = await generatedWorkspace(sb, { users: 20, groups: 2, membersPerGroup: 3, messages: 30 });
    const ran = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(ran.code, 0, ran.stderr);
    const logFile = path.join(dir, '.migrate-checkpoint.runs.ndjson');
    await appendFile(logFile, '{"type":"sample","t":17');
    const torn = await runCli(['report', '--json'], { cwd: dir });
    assert.equal(torn.code, 0, torn.stderr);
    assert.match(await readFile(path.join(dir, 'migration-report.html'), 'utf8'), /1 run log line\(s\) could not/);
    const again = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(again.code, 0, again.stderr);
    const lines = (await readFile(logFile, 'utf8')).split('\n');
    assert.equal(lines.at(-1), '', 'ends with a newline');
    assert.equal(lines.filter((l) => l.startsWith('{"type":"run-start"')).length, 2, 'the second run starts a line');
    assert.equal((await runCli(['report'], { cwd: dir })).code, 0);
    const figures = figuresOf(await readFile(path.join(dir, 'migration-report.html'), 'utf8'));
    assert.equal(figures.status, 'Complete: every record of the export is in.');
  } finally {
    await sb.close();
  }
});

test('a run killed with SIGKILL: the report counts what its checkpoint acknowledged, and the crash', async () => {
  // Real time: the latency keeps the import going for the SIGKILL to land mid-messages.
  const sb = await sandbox({ latencyMs: 150 });
  try {
    const { dir, counts } = await generatedWorkspace(sb, { users: 50, groups: 2, membersPerGroup: 5, messages: 1500 });
    const child = spawnCli(['import', '--json'], { cwd: dir });
    const killed = collect(child);
    await waitForRequests(sb, 6, { entity: 'messages', timeoutMs: 60_000 });
    child.kill('SIGKILL');
    await killed;
    const resumed = await runCli(['import', '--json'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    const summary = JSON.parse(resumed.stdout);
    assert.ok(summary.entities.messages.resumed > 0, 'the killed run had acknowledged some messages');
    assert.equal((await runCli(['report'], { cwd: dir })).code, 0);
    const figures = figuresOf(await readFile(path.join(dir, 'migration-report.html'), 'utf8'));
    for (const [entity, n] of Object.entries(counts)) {
      const inNow = figures[`${entity}.imported`] + figures[`${entity}.alreadyPresent`];
      assert.equal(inNow, n, `${entity}: every record counted once, the killed run's too`);
      assert.equal(sb.stats().perEntity[entity].stored, n);
    }
    assert.equal(figures.status, 'Complete: every record of the export is in.');
    assert.equal(figures.interruptions, 1, 'the run with no end line');
  } finally {
    await sb.close();
  }
});

test('a run that fails before sending ends its run log line with the error; the report says incomplete', async () => {
  const sb = await sandbox();
  try {
    const { dir } = await generatedWorkspace(sb, { users: 10, groups: 1, membersPerGroup: 2, messages: 5 });
    await writeFile(path.join(dir, 'blocker'), 'a file where a folder should be');
    const run = await runCli(['import', '--rejects', 'blocker/rejects.ndjson'], { cwd: dir });
    assert.equal(run.code, 1, run.stderr);
    const end = (await readNdjson(path.join(dir, '.migrate-checkpoint.runs.ndjson'))).at(-1);
    assert.equal(end.type, 'run-end');
    assert.equal(end.status, 'failed');
    assert.equal(end.error.code, 'REJECTS_UNWRITABLE');
    const report = await runCli(['report', '--json'], { cwd: dir });
    assert.equal(JSON.parse(report.stdout).statusLine, 'Incomplete: the last import failed.');
    assert.match(await readFile(path.join(dir, 'migration-report.html'), 'utf8'), /REJECTS_UNWRITABLE: cannot write/);
  } finally {
    await sb.close();
  }
});

test('an export of many files: the per-file table is folded, every file listed with its records', async () => {
  const sb = await sandbox();
  try {
    const dir = await tempDir();
    const { sources, counts } = await writeManyFilesExport(dir, { files: 20 });
    await writeConfig(dir, { baseUrl: sb.url, sources, requestsPerMinute: 1e9 });
    assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    assert.equal((await runCli(['report', '--out', 'r.html'], { cwd: dir })).code, 0);
    const html = await readFile(path.join(dir, 'r.html'), 'utf8');
    assert.match(html, /<details><summary>23 files \(click to show\)<\/summary>/);
    const parts = [...html.matchAll(/<code>messages\/part-\d+\.ndjson<\/code><\/td><td class="n">(\d+)</g)];
    assert.equal(parts.length, 20);
    assert.equal(
      parts.reduce((n, m) => n + Number(m[1]), 0),
      counts.messages,
    );
  } finally {
    await sb.close();
  }
});
