// Runs a tier of the tests (`fast`, the default, or `slow`) with node's runner, four processes at once;
// then lists the ten slowest files, so a slow newcomer is seen (a report only).
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../test/', import.meta.url));
/** Which test files each tier runs: test/slow/ holds the long property runs, the packed package and the browser. */
const TIERS = {
  fast: (file) => !file.startsWith(`slow${path.sep}`),
  slow: (file) => file.startsWith(`slow${path.sep}`),
};

const tier = process.argv[2] ?? 'fast';
const only = process.argv.slice(3);
if (!(tier in TIERS)) {
  console.error(`usage: node scripts/run-tests.mjs [${Object.keys(TIERS).join('|')}] [file...]`);
  process.exit(2);
}

/** Folders whose files take longest first: a long file started last would end the run alone. */
const FOLDER_ORDER = ['process', 'slow', 'commands', 'fakes', 'unit'];

/** The test files under test/: by folder, then the largest first (a fair guess at the longest). */
function testFiles() {
  const rank = (file) => FOLDER_ORDER.indexOf(file.split(path.sep)[0]);
  const size = (file) => statSync(path.join(ROOT, file)).size;
  return readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.mjs'))
    .sort((a, b) => rank(a) - rank(b) || size(b) - size(a) || a.localeCompare(b));
}

/**
 * Files that run in this process's children, not children of their own: a process each cost more CPU to
 * start (node, the runner, dist's modules) than most of these files spend on their tests. Those that
 * start CLI processes, signals and terminals (process/, slow/) keep a process each.
 */
const SHARED = ['unit', 'fakes', 'commands'];
/** How many processes share them: enough to keep four running beside the process files. */
const SHARED_PROCESSES = 6;

/**
 * `files` in `SHARED_PROCESSES` bundles of about equal size (each a file importing its share, whose
 * tests keep their own file names in every report), the rest as they are.
 */
function bundled(files, dir) {
  const shared = files.filter((f) => SHARED.includes(path.relative(ROOT, f).split(path.sep)[0]));
  if (shared.length === 0) return files;
  const bundles = Array.from({ length: Math.min(SHARED_PROCESSES, shared.length) }, () => ({ size: 0, files: [] }));
  for (const file of shared) {
    const lightest = bundles.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.size += statSync(file).size;
    lightest.files.push(file);
  }
  const written = bundles.map((bundle, i) => {
    const file = path.join(dir, `shared-${i + 1}.test.mjs`);
    writeFileSync(file, bundle.files.map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};\n`).join(''));
    return file;
  });
  // First: each is longer than any file alone, and one started last would end the run alone.
  return [...written, ...files.filter((f) => !shared.includes(f))];
}

const bundleDir = mkdtempSync(path.join(tmpdir(), 'cm-test-bundles-'));
const listed =
  only.length > 0
    ? only.map((f) => path.resolve(f))
    : testFiles()
        .filter(TIERS[tier])
        .map((f) => path.join(ROOT, f));
const files = only.length > 0 ? listed : bundled(listed, bundleDir);
const perFile = new Map();
const tally = { passed: 0, failed: 0, skipped: 0 };
const started = performance.now();
// Most files wait on sockets and child processes more than they compute: four at once keep two cores busy.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 4);
const stream = run({ files, concurrency, timeout: 300_000 });
stream.on('test:pass', (data) => count(data, data.skip ? 'skipped' : 'passed'));
stream.on('test:fail', (data) => count(data, 'failed'));
const report = stream.compose(new spec());
report.pipe(process.stdout, { end: false });
await finished(report);
rmSync(bundleDir, { recursive: true, force: true });

function count(data, outcome) {
  if (data.details?.type !== 'suite') tally[outcome]++;
  if (data.nesting !== 0 || !data.file) return;
  perFile.set(data.file, (perFile.get(data.file) ?? 0) + (data.details?.duration_ms ?? 0));
}

const wall = (performance.now() - started) / 1000;
// TEST_SLOWEST=<n> lists more of them, for a look at where the time goes.
const shown = Number(process.env.TEST_SLOWEST ?? 10);
const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, shown);
const howMany = shown === 10 ? 'ten' : shown;
console.log(`\nThe ${howMany} slowest test files of ${listed.length} (${tier} tier, ${wall.toFixed(1)} s in all):`);
for (const [file, ms] of slowest)
  console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${path.relative(ROOT, file)}`);
console.log(`${tier}: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
// A file that fails to load counts as a failed test too.
process.exitCode = tally.failed > 0 ? 1 : 0;
