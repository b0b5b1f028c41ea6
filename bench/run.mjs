// `npm run bench`: generates its exports, measures the tool against the floor of its own parsers, a
// sandbox in another process, its rate limit and its memory, and the script a user would write
// instead; prints a table and writes bench/results.json. See bench/README-bench.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH, ROOT, RUN_DIR } from './children.mjs';
import { busyNote, createMeasurements } from './measure.mjs';
import { formatProfile, summariseProfile } from './cpu-profile.mjs';
import { ensureDataset } from './generate.mjs';
import { measureManyFiles } from './files-section.mjs';
import { measureMedia } from './media-section.mjs';
import { measureVerify } from './verify-section.mjs';
import { readVerifyScaleResults, runVerifyScaleSection } from './verify-scale-section.mjs';
import { measurePull, PULL_SOURCES } from './pull-section.mjs';
import { readDeltaResults, runDeltaSection } from './delta-section.mjs';
import { readSyncRoundResults, runSyncRoundSection } from './sync-round-section.mjs';
import { measureFormats } from './format-runs.mjs';
import { analyseRate, fullRequests, verifyArrivals } from './rate-stats.mjs';
import { formatTable, mb, num, pct } from './table.mjs';
import { renderPerformanceDoc } from './performance-doc.mjs';

const FORMATS = ['ndjson', 'csv', 'json'];
const PULL_RESULTS = path.join(BENCH, 'pull-results.json');
const readPullResults = () => (existsSync(PULL_RESULTS) ? JSON.parse(readFileSync(PULL_RESULTS, 'utf8')) : undefined);
const SECTIONS = ['floor', 'validate', 'import', 'rate', 'auto', 'naive', 'files', 'media', 'verify', 'pull'];
// Asked for by name only: they import 10M messages (an hour or more) and keep their own results file.
const NAMED = { 'verify-scale': runVerifyScaleSection, delta: runDeltaSection, 'sync-round': runSyncRoundSection };
const NAMED_SECTIONS = Object.keys(NAMED);

const { values: opts } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    'messages-3m': { type: 'boolean', default: false },
    rate: { type: 'string', default: '1200' },
    'latency-ms': { type: 'string', default: '150' },
    'rate-seconds': { type: 'string', default: '30' },
    'auto-seconds': { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '3' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(BENCH, 'results.json') },
    doc: { type: 'string' },
    'quiet-wait': { type: 'string', default: '20' },
    'pull-rate': { type: 'string', default: '6000' },
    'pull-sources': { type: 'string', default: PULL_SOURCES.join(',') },
    'verify-scale-sizes': { type: 'string', default: '1000000,10000000' },
    'verify-baseline': { type: 'string' },
    'delta-before': { type: 'string' },
    'delta-reuse': { type: 'boolean', default: false },
    'sync-round-messages': { type: 'string', default: '10000000' },
    'sync-round-reuse': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (opts.help) {
  const onlyFlag = `[--only ${SECTIONS.join(',')}]`;
  process.stdout.write(`usage: npm run bench -- [--scale 0.1] [--messages-3m] [--rate 1200] [--latency-ms 150]
  [--rate-seconds 30] [--auto-seconds 60] [--concurrency 8] [--repeat 3] ${onlyFlag} [--profile] [--out file]
  [--doc file]  the page rendered from the results (default docs/performance.md with the default --out, else <out>.md)
  [--quiet-wait 20]  seconds to wait before each measurement for other processes to leave the CPUs idle (0: don't)
  [--pull-rate 6000] [--pull-sources sendbird,stream,...]  the pull section: the fakes' budget, R a minute
  [--only verify-scale [--verify-scale-sizes 1000000,10000000] [--verify-baseline old/bin/chat-migrate.js]]
  [--only delta [--delta-before bin/chat-migrate.js] [--delta-reuse]]  --delta-before: also time the nothing-new
  import with that build; --delta-reuse: keep the checkpoint of its last run's import of everything
  [--only sync-round [--sync-round-messages 10000000] [--sync-round-reuse]]  --sync-round-reuse: keep the
  pull of its last run at that size (the first round then imports and verifies it into a new sandbox)\n`);
  process.exit(0);
}

const scale = Number(opts.scale);
const R = Number(opts.rate);
const latencyMs = Number(opts['latency-ms']);
const concurrency = Number(opts.concurrency);
const repeat = Number(opts.repeat);
const only = new Set((opts.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim()));
for (const s of only)
  if (!SECTIONS.includes(s) && !NAMED_SECTIONS.includes(s)) {
    throw new Error(`--only: unknown section ${s} (${[...SECTIONS, ...NAMED_SECTIONS].join(', ')})`);
  }
if (!(scale > 0) || !(R > 0) || !(concurrency > 0) || !Number.isInteger(repeat) || repeat < 1) {
  throw new Error('--scale, --rate, --concurrency and --repeat must be positive (--repeat a whole number)');
}

const began = Date.now();
const log = (message) =>
  process.stderr.write(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${message}\n`);
const rows = [];
const details = {};
const row = (section, metric, measured, target, pass) => rows.push({ section, metric, measured, target, pass });

const counts = (s, messages) => {
  const users = Math.max(50, Math.round(10_000 * s));
  const groups = Math.max(5, Math.round(1_000 * s));
  return {
    users,
    groups,
    members: Math.max(groups, Math.round(50_000 * s)),
    messages: messages ?? Math.max(1, Math.round(1_000_000 * s)),
  };
};
const main = counts(scale);
const totalRecords = (p) => p.users + p.groups + p.members + p.messages;

const { interference, measureFloor, runValidate, runImport, measureSandboxCeiling, runNaive } = createMeasurements({
  concurrency,
  quietWaitMs: Number(opts['quiet-wait']) * 1000,
  log,
});

// ---------------------------------------------------------------------------------------------
// the run

const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  totalMemoryMB: Math.round(totalmem() / 2 ** 20),
  freeMemoryMBAtStart: Math.round(freemem() / 2 ** 20),
  platform: `${platform()} ${release()} ${arch()}`,
  loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
};
/** Which code ran: the commit, whether the tree was dirty, and whether dist/ is older than src/ (a stale build). */
function codeVersion() {
  const git = (...args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const newest = (dir, ext) => {
    let latest = 0;
    for (const entry of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(ext))
        latest = Math.max(latest, statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
    }
    return latest;
  };
  const distAt = newest('dist', '.js');
  const srcAt = newest('src', '.ts');
  return {
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: (git('status', '--porcelain', '--', 'src') ?? '') !== '',
    distBuiltAt: distAt ? new Date(distAt).toISOString() : undefined,
    distStale: srcAt > distAt,
  };
}
const code = codeVersion();
log(`machine: ${machine.cpus} x ${machine.cpuModel}, node ${machine.node}, ${machine.totalMemoryMB} MB`);
log(
  `code: commit ${code.commit ?? '?'}${code.dirty ? ' + uncommitted src changes' : ''}, ` +
    `dist built ${code.distBuiltAt ?? 'never'}`,
);
if (code.distStale) log('warning: src/ is newer than dist/: the bench runs dist/ (npm run build first)');

// The main export (620 MB at scale 1) only for the sections that read it: `--only files` stays quick.
const readsMain = ['floor', 'validate', 'import', 'naive', 'verify'].some((s) => only.has(s));
const needsMain = readsMain || opts['messages-3m'] || opts.profile;
if (needsMain) {
  log(
    `scale ${scale}: ${num(main.users)} users, ${num(main.groups)} groups, ` +
      `${num(main.members)} members, ${num(main.messages)} messages`,
  );
}
const ds = needsMain ? ensureDataset({ ...main, formats: FORMATS }, log) : undefined;
// Per format: a floor, validate (--repeat times, a floor after each), import, a floor (format-runs.mjs).
let ceiling;
if (only.has('import')) {
  log(`sandbox ceiling (pre-serialised bodies, concurrency ${concurrency}) ...`);
  ceiling = await measureSandboxCeiling(ds.messages.ndjson, Math.min(main.messages, 300_000));
  details.sandboxCeiling = ceiling;
}
let floors = {};
let validates = {};
let imports = {};
if (only.has('floor') || only.has('validate') || only.has('import')) {
  const measured = await measureFormats({
    formats: FORMATS,
    only,
    repeat,
    log,
    row,
    measure: { measureFloor, runValidate, runImport },
    ds,
    main,
    totalRecords,
    ceiling,
    concurrency,
  });
  ({ floors, validates, imports } = measured);
  details.floors = floors;
  if (only.has('validate')) details.validate = validates;
  if (only.has('import')) details.import = imports;
}
if (ceiling) {
  row(
    'import',
    `sandbox ceiling: pre-serialised bodies, ${concurrency} connections`,
    `${num(ceiling.perSec)} rec/s (${pct(ceiling.perSec / floors.ndjson.perSec)} of ndjson floor)${busyNote(ceiling)}`,
    '-',
    null,
  );
}

/** Requests a minute in each sampling interval, from the first request on: where a run lost its rate. */
const series = (run) => {
  const first = run.stats.firstRequestAt;
  const points = run.samples.filter((s) => s.t >= first);
  return points.slice(1).map((s, i) => ({
    second: Math.round((s.t - first) / 100) / 10,
    rpm: Math.round(((s.requests - points[i].requests) / (s.t - points[i].t)) * 60_000),
  }));
};

/** The rate-limited data set: sized so the run lasts about `seconds` at R requests a minute. */
function rateDataset(seconds) {
  const requests = Math.round((R / 60) * seconds);
  const small = { users: 537, groups: 53, members: 1013 };
  const messages = Math.max(1, requests * 50 - totalRecords({ ...small, messages: 0 })) + 17;
  return ensureDataset({ ...small, messages, formats: ['ndjson'] }, log);
}

if (only.has('rate')) {
  const rds = rateDataset(Number(opts['rate-seconds']));
  log(
    `rate-limited import: sandbox R=${R}/min, latency ${latencyMs} ms; tool told R; ` +
      `${num(totalRecords(rds.params))} records ...`,
  );
  const run = await runImport('rate-fixed', rds, 'ndjson', { rpm: R, sandbox: { requestsPerMinute: R, latencyMs } });
  const a = analyseRate(run.stats, run.samples, R);
  const full = fullRequests(run.stats);
  const arrivals = verifyArrivals(run.stats, rds.params);
  row(
    'rate',
    `R=${R}: requests/min, steady window (whole run)`,
    `${num(a.steadyRpm)} (${pct(a.steadyRpm / R)}); ` +
      `whole run ${num(a.overallRpm)} (${pct(a.overallRpm / R)})${busyNote(run)}`,
    `>= 97% of R`,
    a.steadyRpm >= 0.97 * R,
  );
  row(
    'rate',
    `R=${R}: 429 answers`,
    `${a.status429} (rateLimited ${a.rateLimited}) of ${num(a.requests)} requests`,
    '0',
    a.status429 === 0 && a.rateLimited === 0,
  );
  row(
    'rate',
    `R=${R}: requests carrying 50 records`,
    `${pct(full.ratio, 2)} (${num(full.full)}/${num(full.counted)}, ${full.excused} last batches excluded)`,
    '>= 99%',
    full.ratio >= 0.99,
  );
  row(
    'rate',
    `R=${R}: every record arrives once`,
    arrivals.text,
    'stored = generated',
    arrivals.ok && run.summary.status === 'completed',
  );
  details.rateFixed = { analysis: a, full, summary: run.summary, stats: run.stats, rss: run.rss, series: series(run) };
}

if (only.has('auto')) {
  const rds = rateDataset(Number(opts['auto-seconds']));
  log(`rate-limited import, "requestsPerMinute": "auto" (starts at 60/min): sandbox R=${R}/min ...`);
  const run = await runImport('rate-auto', rds, 'ndjson', {
    rpm: 'auto',
    sandbox: { requestsPerMinute: R, latencyMs },
  });
  const a = analyseRate(run.stats, run.samples, R);
  const share429 = a.status429 / a.requests;
  row(
    'auto',
    `auto: requests/min over the run (${a.seconds.toFixed(0)} s)`,
    `${num(a.overallRpm)} (${pct(a.overallRpm / R)}); steady ${num(a.steadyRpm)}${busyNote(run)}`,
    '>= 90% of R',
    a.overallRpm >= 0.9 * R,
  );
  row(
    'auto',
    'auto: 429 answers',
    `${a.status429} of ${num(a.requests)} (${pct(share429, 2)})`,
    '< 2% of requests',
    share429 < 0.02,
  );
  row(
    'auto',
    'auto: seconds to reach 97% of R',
    a.secondsTo97 === undefined ? 'never' : `${a.secondsTo97.toFixed(1)} s`,
    '-',
    null,
  );
  details.rateAuto = { analysis: a, summary: run.summary, stats: run.stats, rss: run.rss, series: series(run) };
}

// Memory: the validate and import runs above, plus a 3M set on demand.
const MEMORY_LIMIT = 150 * 2 ** 20;
const peak = (runs) => Math.max(...Object.values(runs).map((r) => r.rss?.maxRssBytes ?? NaN));
if (only.has('validate')) {
  const p = peak(validates);
  row(
    'memory',
    `validate peak RSS at ${num(main.messages)} messages (max of formats)`,
    `${mb(p)} (${FORMATS.map((f) => `${f} ${mb(validates[f].rss?.maxRssBytes)}`).join(', ')})`,
    '<= 150 MB',
    p <= MEMORY_LIMIT,
  );
}
if (only.has('import')) {
  const p = peak(imports);
  row(
    'memory',
    `import peak RSS at ${num(main.messages)} messages (max of formats)`,
    `${mb(p)} (${FORMATS.map((f) => `${f} ${mb(imports[f].rss?.maxRssBytes)}`).join(', ')})`,
    '<= 150 MB',
    p <= MEMORY_LIMIT,
  );
}
if (opts['messages-3m']) {
  const big = counts(scale, main.messages * 3);
  const ds3 = ensureDataset({ ...big, formats: ['ndjson'] }, log);
  log(`validate at ${num(big.messages)} messages ...`);
  const v3 = await runValidate('validate-3m', ds3, 'ndjson');
  log(`import at ${num(big.messages)} messages ...`);
  const i3 = await runImport('import-3m', ds3, 'ndjson', { rpm: 1e9 });
  const v1 = validates.ndjson?.rss?.maxRssBytes ?? (await runValidate('validate-1m', ds, 'ndjson')).rss.maxRssBytes;
  const i1 =
    imports.ndjson?.rss?.maxRssBytes ?? (await runImport('import-1m', ds, 'ndjson', { rpm: 1e9 })).rss.maxRssBytes;
  const gv = v3.rss.maxRssBytes / v1 - 1;
  const gi = i3.rss.maxRssBytes / i1 - 1;
  row(
    'memory',
    `validate peak RSS ${num(main.messages)} -> ${num(big.messages)} messages (ndjson)`,
    `${mb(v1)} -> ${mb(v3.rss.maxRssBytes)} (${gv >= 0 ? '+' : ''}${pct(gv)})`,
    '< +10%, <= 150 MB',
    gv < 0.1 && v3.rss.maxRssBytes <= MEMORY_LIMIT,
  );
  row(
    'memory',
    `import peak RSS ${num(main.messages)} -> ${num(big.messages)} messages (ndjson)`,
    `${mb(i1)} -> ${mb(i3.rss.maxRssBytes)} (${gi >= 0 ? '+' : ''}${pct(gi)})`,
    '< +10%, <= 150 MB',
    gi < 0.1 && i3.rss.maxRssBytes <= MEMORY_LIMIT,
  );
  details.memory3m = { validate: v3, import: { ms: i3.ms, rss: i3.rss, summary: i3.summary.totals } };
}

if (only.has('naive')) {
  const small = counts(scale, Math.max(1, Math.round(main.messages / 10)));
  const dsSmall = ensureDataset({ ...small, formats: ['json'] }, log);
  log(`naive script at ${num(small.messages)} messages ...`);
  const nSmall = await runNaive('naive-small', dsSmall);
  log(`naive script at ${num(main.messages)} messages ...`);
  const nBig = await runNaive('naive-big', ds);
  log(`tool import (json) at ${num(small.messages)} messages, for comparison ...`);
  const tSmall = await runImport('import-json-small', dsSmall, 'json', { rpm: 1e9 });
  const tBig = imports.json ?? (await runImport('import-json-big', ds, 'json', { rpm: 1e9 }));
  const grow = (a, b) => `${mb(a)} -> ${mb(b)} (x${(b / a).toFixed(1)})`;
  row(
    'naive',
    `naive script peak RSS ${num(small.messages)} -> ${num(main.messages)} messages`,
    grow(nSmall.rss.maxRssBytes, nBig.rss.maxRssBytes),
    '- (grows with the file)',
    null,
  );
  row(
    'naive',
    `tool import peak RSS ${num(small.messages)} -> ${num(main.messages)} messages (json)`,
    grow(tSmall.rss.maxRssBytes, tBig.rss.maxRssBytes),
    '- (flat)',
    null,
  );
  const toolPerSec = imports.json?.perSec ?? totalRecords(main) / (tBig.ms / 1000);
  row(
    'naive',
    `naive script throughput (sequential, no validation)`,
    `${num(nBig.perSec)} rec/s, ${nBig.failed} failed requests; ` +
      `tool import json ${num(toolPerSec)} rec/s${busyNote(nBig, tBig)}`,
    '-',
    null,
  );
  details.naive = { small: nSmall, big: nBig, toolSmallRss: tSmall.rss, toolBigRss: tBig.rss };
}

// Exports of many small files: requests against ceil(N/50) per phase, not time (issue 14).
if (only.has('files')) details.files = await measureManyFiles({ concurrency, log, row });
if (only.has('verify')) details.verify = await measureVerify({ ds, concurrency, log, row });

// Attachments re-hosted into an S3-compatible bucket during the import (issue 18).
if (only.has('media')) details.media = await measureMedia({ concurrency, log, row });
if (only.has('pull')) {
  const sources = opts['pull-sources'].split(',').map((x) => x.trim());
  const pulled = await measurePull({ messages: main.messages, rate: Number(opts['pull-rate']), sources, log, row });
  // Kept apart from results.json (a pull-only run must not replace the import's figures on the page), a
  // source's entry replaced only when it is measured again.
  const kept = readPullResults()?.sources ?? {};
  const startedAt = new Date(began).toISOString();
  for (const [name, result] of Object.entries(pulled.sources)) {
    const measured = rows.find((r) => r.section === 'pull' && r.metric.startsWith(`pull ${name}:`));
    const { messages, rate, channels } = pulled;
    kept[name] = { startedAt, commit: code.commit, messages, rate, channels, ...result, row: measured };
  }
  writeFileSync(PULL_RESULTS, `${JSON.stringify({ machine, sources: kept }, null, 2)}\n`);
}

for (const [name, runSection] of Object.entries(NAMED)) {
  // Each keeps its own results file (a run of it alone leaves results.json as it was).
  const startedAt = new Date(began).toISOString();
  if (only.has(name)) await runSection({ opts, concurrency, main, machine, code, startedAt, log, row });
}

if (opts.profile) {
  mkdirSync(path.join(RUN_DIR, 'profiles'), { recursive: true });
  details.profiles = {};
  const profDir = (what) => {
    const dir = path.join(RUN_DIR, 'profiles', what);
    rmSync(dir, { recursive: true, force: true });
    return dir;
  };
  const flags = (dir) => ['--cpu-prof', '--cpu-prof-dir', dir];
  log('profiling validate (ndjson) ...');
  await runValidate('profile-validate', ds, 'ndjson', flags(profDir('validate')));
  log('profiling import (ndjson) and the sandbox it sends to ...');
  await runImport('profile-import', ds, 'ndjson', {
    rpm: 1e9,
    nodeFlags: flags(profDir('import')),
    sandbox: { nodeFlags: flags(profDir('sandbox')) },
  });
  for (const what of ['validate', 'import', 'sandbox']) {
    const dir = path.join(RUN_DIR, 'profiles', what);
    const name = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!name) continue;
    const file = path.join(dir, name);
    const summary = summariseProfile(file, 30);
    details.profiles[what] = { file: path.relative(ROOT, file), ...summary };
    process.stderr.write(`\n--- ${what} profile (${path.relative(ROOT, file)}) ---\n${formatProfile(summary)}\n`);
  }
}

const finished = Date.now();
const results = {
  tool: 'chat-migrate bench',
  startedAt: new Date(began).toISOString(),
  finishedAt: new Date(finished).toISOString(),
  totalSeconds: Math.round((finished - began) / 1000),
  machine,
  code,
  parameters: {
    scale,
    ...main,
    rate: R,
    latencyMs,
    concurrency,
    repeat,
    rateSeconds: Number(opts['rate-seconds']),
    autoSeconds: Number(opts['auto-seconds']),
    messages3m: opts['messages-3m'],
    sections: [...only],
  },
  rows,
  interference,
  details,
};
// A run of the pull section or the named ones alone leaves the import's results (and the page's other
// figures) as they were.
const pullOnly = [...only].every((s) => s === 'pull' || NAMED_SECTIONS.includes(s));
const tmp = `${opts.out}.tmp`;
if (!pullOnly) {
  writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(tmp, opts.out);
}

process.stdout.write(
  `\nchat-migrate bench, ${results.startedAt}: ${machine.cpus} x ${machine.cpuModel}, ` +
    `node ${machine.node}, ${machine.totalMemoryMB} MB RAM\n`,
);
process.stdout.write(
  `code: commit ${code.commit ?? '?'}${code.dirty ? ' + uncommitted src changes' : ''}, ` +
    `dist built ${code.distBuiltAt ?? 'never'}${code.distStale ? ' (OLDER than src/)' : ''}\n`,
);
const scaleLine = needsMain
  ? `scale ${scale}: ${num(main.users)} users, ${num(main.groups)} groups, ` +
    `${num(main.members)} members, ${num(main.messages)} messages; `
  : '';
process.stdout.write(`${scaleLine}took ${results.totalSeconds} s\n\n`);
process.stdout.write(`${formatTable(rows)}\n`);
const codeAtEnd = codeVersion();
if (codeAtEnd.distBuiltAt !== code.distBuiltAt || codeAtEnd.commit !== code.commit) {
  results.codeAtEnd = codeAtEnd;
  if (!pullOnly) {
    writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`);
    renameSync(tmp, opts.out);
  }
  process.stdout.write(
    `\nwarning: the code changed during the run (now commit ${codeAtEnd.commit}, ` +
      `dist built ${codeAtEnd.distBuiltAt}): rows may mix versions\n`,
  );
}
// The page follows its results file: a run written elsewhere (--out) leaves the committed page alone.
const defaultOut = path.resolve(opts.out) === path.join(BENCH, 'results.json');
const docPath =
  opts.doc ?? (defaultOut ? path.join(ROOT, 'docs', 'performance.md') : `${opts.out.replace(/\.json$/, '')}.md`);
const committed = existsSync(opts.out) ? opts.out : path.join(BENCH, 'results.json');
const pageResults = pullOnly ? JSON.parse(readFileSync(committed, 'utf8')) : results;
writeFileSync(
  `${docPath}.tmp`,
  renderPerformanceDoc(pageResults, {
    pull: readPullResults(),
    verifyScale: readVerifyScaleResults(),
    delta: readDeltaResults(),
    syncRound: readSyncRoundResults(),
  }),
);
renameSync(`${docPath}.tmp`, docPath);
const noisy = interference.filter((i) => (i.others ?? 0) >= 0.1);
if (noisy.length > 0) {
  const during = noisy.map((i) => `${i.label} (${pct(i.others, 0)})`).join(', ');
  process.stdout.write(
    `\nnote: other processes used >= 10% of the CPUs during ${during}; ` +
      'those figures are low. Re-run on a quiet machine.\n',
  );
}
const failed = rows.filter((r) => r.pass === false).length;
const verdict = failed === 0 ? 'all targets met' : `${failed} target(s) missed`;
const shown = (file) => path.relative(process.cwd(), file);
process.stdout.write(`\n${verdict}; results in ${shown(opts.out)}, page in ${shown(docPath)}\n`);
process.exitCode = failed === 0 ? 0 : 1;
