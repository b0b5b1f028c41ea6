// The bench's `sync-round` section: `sync sendbird --rounds 1` against the Sendbird fake (a generated
// world of N messages, 10M by default, in its own process) and a sandbox process that keeps records.
// The first round pulls, imports and verifies everything; a settling round with nothing new lets the
// code write what it keeps between rounds; then the measured round with nothing new: its wall time,
// peak RSS, CPU, its own line's fields and the source requests it made. Results go to
// bench/sync-round-results.json.
//
// `--sync-round-reuse` keeps the pull of an earlier run (the export folder with its journal: the fake's
// world is the same every run) and deletes the rest of the state folder, so the first round pulls
// nothing new but imports and verifies everything into this run's empty sandbox with the code under
// test. That is the cheapest honest re-measure: the service holds every record, as in a real sync, and
// every file the round reads besides the pull (checkpoint, run log, id map, caches) is this code's.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { BENCH, BIN, RUN_DIR, SANDBOX_KEY, lastJson, runNode, startFakeChild, startSandboxChild } from './children.mjs';
import { mb, num, rowOf } from './table.mjs';

export const SYNC_ROUND_RESULTS = path.join(BENCH, 'sync-round-results.json');
/** The target: a round with nothing new at 10M (pull, import, verify of the window) in 15 s. */
const ROUND_MS = 15_000;
/** Budgets so high that neither side waits: the round's own work is what is timed. */
const UNLIMITED = 1_000_000_000;
const PULL_JOURNAL = '.chat-migrate-pull.ndjson';

/** The world's other sizes (the same at every message count). */
export const SYNC_WORLD = { users: 10_000, channels: 1_000 };

export function readSyncRoundResults() {
  if (!existsSync(SYNC_ROUND_RESULTS)) return undefined;
  return JSON.parse(readFileSync(SYNC_ROUND_RESULTS, 'utf8'));
}

/** One `sync --rounds 1` in its own process: wall time, peak RSS and CPU, the round's line. */
async function syncRound({ args, env, cwd, fake, sb, label, log }) {
  const before = await fake.stats();
  const service = await sb.stats();
  const load = loadavg().map((l) => Math.round(l * 100) / 100);
  const run = await runNode(BIN, args, { env, cwd, timeoutMs: 4 * 3600_000 });
  const summary = lastJson(run, `sync, ${label}`);
  const after = await fake.stats();
  const serviceAfter = await sb.stats();
  const line = summary.rounds?.[0];
  const result = {
    exit: run.code,
    ms: run.ms,
    rss: run.rss,
    loadAverageAtStart: load,
    status: summary.status,
    sourceRequests: after.requests - before.requests,
    serviceRequests: serviceAfter.requests - service.requests,
    serviceReads: serviceAfter.readRequests - service.readRequests,
    round: line,
    error: summary.error,
  };
  const took = line ? `round's own ${(line.tookMs / 1000).toFixed(1)} s` : `no round line (${summary.status})`;
  log(
    `sync-round: ${label}: ${(run.ms / 1000).toFixed(1)} s (${took}), exit ${run.code}, ` +
      `peak ${mb(run.rss?.maxRssBytes)}, ${num(result.sourceRequests)} source requests`,
  );
  if (run.code !== 0) log(`sync-round: ${label}: stderr ${run.stderr.slice(-2000)}`);
  return result;
}

/** Empties the state folder, or with `reuse` everything in it but a whole earlier pull. */
function prepareState(state, exportDir, reuse) {
  const reused = reuse && existsSync(path.join(exportDir, PULL_JOURNAL));
  if (!reused) rmSync(state, { recursive: true, force: true });
  else
    for (const name of readdirSync(state)) if (name !== 'export') rmSync(path.join(state, name), { recursive: true });
  mkdirSync(state, { recursive: true });
  return reused;
}

/**
 * `messages` in the fake's world; `reuse`: keep the pull of an earlier run at this size (the first
 * round then pulls nothing new and imports and verifies everything into this run's sandbox).
 */
export async function measureSyncRound({ messages, reuse = false, concurrency, log, row }) {
  const work = path.join(RUN_DIR, `sync-round-m${messages}`);
  const state = path.join(work, 'state');
  const exportDir = path.join(state, 'export');
  const reused = prepareState(state, exportDir, reuse);
  const world = { messages, ...SYNC_WORLD };
  const fake = await startFakeChild('sendbird', { world, requestsPerMinute: UNLIMITED });
  // Verify reads records back, so the sandbox keeps them: ~400 MB a million messages, so 10M come
  // near V8's default heap limit.
  const sb = await startSandboxChild({ keepRecords: true, nodeFlags: ['--max-old-space-size=12288'] });
  let result;
  try {
    const args = ['sync', 'sendbird', '--rounds', '1', '--json', '--out', exportDir];
    args.push('--checkpoint', path.join(state, 'checkpoint.json'), '--rejects', path.join(state, 'rejects.ndjson'));
    args.push('--base-url', sb.url, '--source-base-url', fake.url, '--retention-days', '0');
    args.push('--source-requests-per-minute', String(UNLIMITED), '--source-concurrency', String(concurrency));
    args.push('--requests-per-minute', String(UNLIMITED), '--rest-requests-per-minute', String(UNLIMITED));
    args.push('--concurrency', String(concurrency));
    const env = { ...fake.env, MIGRATE_API_KEY: SANDBOX_KEY };
    const round = (label) => syncRound({ args, env, cwd: work, fake, sb, label, log });
    log(
      `sync-round: ${num(messages)} messages in ${num(world.channels)} channels, ${num(world.users)} users` +
        `${reused ? ' (the pull kept from an earlier run)' : ''}: first round ...`,
    );
    const first = await round(reused ? 'first round, pull kept' : 'first round, everything');
    const settling = await round('settling round, nothing new');
    const measured = await round('measured round, nothing new');
    const sandbox = await sb.stats();
    result = { messages, ...SYNC_WORLD, reused, first, settling, measured, sandbox, sandboxRss: undefined };
  } finally {
    const sandboxRss = await sb.stop();
    await fake.stop();
    if (result) result.sandboxRss = sandboxRss;
  }
  for (const r of syncRoundRows(result)) row(...r);
  return result;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** What one round did, from its own line. */
function describe(r) {
  const line = r.round;
  if (!line) return `${seconds(r.ms)}, exit ${r.exit}, ${r.status}${r.error ? `: ${r.error.message}` : ''}`;
  const v = line.verified;
  const lag = line.lagMs === undefined ? 'lag unknown' : `lag ${seconds(line.lagMs)}`;
  return (
    `${seconds(r.ms)} (round's own ${seconds(line.tookMs)}), imported ${num(line.imported)}, ` +
    `${num(line.unchangedFiles ?? 0)} files unchanged, verified ${num(v.present)} of ${num(v.expected)}` +
    `${v.filesNotRead === undefined ? '' : ` (${num(v.filesNotRead)} files not read)`}, ${lag}, ` +
    `${num(r.sourceRequests)} source requests, ${num(r.serviceReads)} service reads, peak ${mb(r.rss?.maxRssBytes)}, ` +
    `CPU ${((r.rss?.userCpuMs + r.rss?.systemCpuMs) / 1000).toFixed(1)} s`
  );
}

const ok = (r) => r.exit === 0 && r.round !== undefined && r.round.notAcross === 0;
const nothingNew = (r) => ok(r) && r.round.imported + r.round.alreadyPresent + r.round.rejected === 0;

/** The section's rows, from its kept result (the page renders them from the results file). */
export function syncRoundRows(result) {
  const { first, settling, measured } = result;
  const at = `at ${num(result.messages)} messages`;
  return [
    [
      'sync-round',
      `sync round ${at}, the first: ${result.reused ? 'the pull kept, everything imported' : 'everything'}`,
      describe(first),
      'exit 0',
      ok(first),
    ],
    ['sync-round', `sync round ${at}, nothing new, settling`, describe(settling), '-', null],
    [
      'sync-round',
      `sync round ${at}, nothing new`,
      describe(measured),
      `<= ${ROUND_MS / 1000} s`,
      nothingNew(measured) && measured.ms <= ROUND_MS,
    ],
  ];
}

/** Runs the section as `npm run bench -- --only sync-round` does and keeps its result. */
export async function runSyncRoundSection({ opts, concurrency, machine, code, startedAt, log, row }) {
  const messages = Number(opts['sync-round-messages']);
  if (!Number.isInteger(messages) || messages < 1) throw new Error('--sync-round-messages must be a whole number');
  const measured = await measureSyncRound({ messages, reuse: opts['sync-round-reuse'], concurrency, log, row });
  const rows = syncRoundRows(measured).map((r) => rowOf(...r));
  // A size's entry is replaced only when that size is measured again (a trial at 100k leaves 10M's);
  // one kept under another key by hand (`1000000-<commit>`, the code before a change) stays.
  const sizes = readSyncRoundResults()?.sizes ?? {};
  sizes[messages] = { startedAt, commit: code.commit, dirty: code.dirty, machine, ...measured, rows };
  const tmp = `${SYNC_ROUND_RESULTS}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ sizes }, null, 2)}\n`);
  renameSync(tmp, SYNC_ROUND_RESULTS);
  return sizes[messages];
}
