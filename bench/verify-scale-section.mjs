// The bench's `verify-scale` section: verify's peak memory and time at 1M, 10M (and 30M) messages. Each
// size is generated (NDJSON only), imported into a sandbox process that keeps records, then verified;
// with a baseline build (`--verify-baseline path/to/bin/chat-migrate.js`, an older checkout), the same
// sandbox is verified by it first, so both times come from one import on one machine.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH, BIN, RUN_DIR, SANDBOX_KEY, lastJson, runNode, startSandboxChild } from './children.mjs';
import { ensureDataset } from './generate.mjs';
import { mb, num } from './table.mjs';
import { writeVerifyConfig } from './verify-section.mjs';

export const VERIFY_SCALE_RESULTS = path.join(BENCH, 'verify-scale-results.json');
const ENTITIES = ['users', 'groups', 'members', 'messages'];
/** The most verify may hold at any size. */
const MEMORY_LIMIT = 200 * 2 ** 20;

/** Kept results (another size's entry stays until that size is measured again). */
export function readVerifyScaleResults() {
  if (!existsSync(VERIFY_SCALE_RESULTS)) return undefined;
  return JSON.parse(readFileSync(VERIFY_SCALE_RESULTS, 'utf8'));
}

export function writeVerifyScaleResults(results) {
  const tmp = `${VERIFY_SCALE_RESULTS}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(tmp, VERIFY_SCALE_RESULTS);
}

async function verifyOnce(bin, config, env) {
  const run = await runNode(bin, ['verify', '--json', '-c', config], { env, timeoutMs: 120 * 60_000 });
  const result = lastJson(run, 'verify');
  const expected = ENTITIES.reduce((n, e) => n + (result.entities[e]?.expected ?? 0), 0);
  const present = ENTITIES.reduce((n, e) => n + (result.entities[e]?.present ?? 0), 0);
  return { exit: run.code, ms: run.ms, rss: run.rss, expected, present };
}

/**
 * `sizes`: message counts (the other entities as at scale 1). `beforeNew`: awaited before the new build
 * verifies (a hook for a driver that measures the baseline while the new build is still being made).
 */
export async function measureVerifyScale({
  sizes,
  concurrency,
  baselineBin = undefined,
  bin = BIN,
  log,
  row,
  beforeNew = undefined,
}) {
  const out = {};
  for (const messages of sizes) {
    const ds = ensureDataset({ users: 10_000, groups: 1_000, members: 50_000, messages, formats: ['ndjson'] }, log);
    // The sandbox keeps every record it is sent (verify reads them back): some 450 MB a million
    // messages, past Node's default heap beyond 10M.
    const nodeFlags = messages > 10_000_000 ? ['--max-old-space-size=16384'] : [];
    const sb = await startSandboxChild({ keepRecords: true, nodeFlags });
    try {
      const config = writeVerifyConfig(path.join(RUN_DIR, `verify-scale-${messages}`), sb.url, ds, concurrency);
      const env = { MIGRATE_API_KEY: SANDBOX_KEY };
      log(`verify-scale ${num(messages)}: importing into a sandbox that keeps records ...`);
      const imported = await runNode(BIN, ['import', '--json', '--fresh', '-c', config], {
        env,
        timeoutMs: 180 * 60_000,
      });
      lastJson(imported, 'import for verify-scale');
      log(`verify-scale ${num(messages)}: imported in ${(imported.ms / 1000).toFixed(0)} s`);
      const entry = { messages, importMs: imported.ms };
      if (baselineBin) {
        log(`verify-scale ${num(messages)}: verifying with the baseline ${baselineBin} ...`);
        entry.baseline = await verifyOnce(baselineBin, config, env);
        log(`verify-scale ${num(messages)}: baseline ${JSON.stringify(entry.baseline)}`);
      }
      await beforeNew?.(messages);
      log(`verify-scale ${num(messages)}: verifying ...`);
      entry.current = await verifyOnce(bin, config, env);
      log(`verify-scale ${num(messages)}: ${JSON.stringify(entry.current)}`);
      out[messages] = entry;
      entry.rows = rowsOf(entry);
      for (const r of entry.rows) row(...r);
    } finally {
      await sb.stop();
    }
  }
  return out;
}

/** The process's CPU seconds: steadier than wall time on a shared machine. */
const cpuSeconds = (run) => ((run.rss?.userCpuMs + run.rss?.systemCpuMs) / 1000).toFixed(1);

/** The rows of one size, from its kept entry (the page renders them from the results file). */
export function rowsOf(entry) {
  const { messages, current, baseline } = entry;
  const rss = current.rss?.maxRssBytes;
  const ok = current.exit === 0 && current.present === current.expected;
  const rows = [
    [
      'verify-scale',
      `verify peak RSS at ${num(messages)} messages`,
      `${mb(rss)} (${(current.ms / 1000).toFixed(0)} s, exit ${current.exit}, ${num(current.present)} present)`,
      '<= 200 MB',
      rss <= MEMORY_LIMIT && ok,
    ],
  ];
  if (baseline) {
    const ratio = current.ms / baseline.ms;
    const before = mb(baseline.rss?.maxRssBytes);
    rows.push([
      'verify-scale',
      `verify time at ${num(messages)} messages, against the build before (its peak RSS ${before})`,
      `${(current.ms / 1000).toFixed(0)} s vs ${(baseline.ms / 1000).toFixed(0)} s (x${ratio.toFixed(2)}); ` +
        `CPU ${cpuSeconds(current)} s vs ${cpuSeconds(baseline)} s`,
      '<= x1.25',
      ratio <= 1.25,
    ]);
  }
  return rows;
}

/** Runs the section as `npm run bench -- --only verify-scale` does; a size's kept entry is replaced. */
export async function runVerifyScaleSection({ opts, concurrency, machine, code, startedAt, log, row }) {
  const sizes = opts['verify-scale-sizes'].split(',').map(Number);
  const measured = await measureVerifyScale({ sizes, concurrency, baselineBin: opts['verify-baseline'], log, row });
  const kept = readVerifyScaleResults()?.sizes ?? {};
  for (const [n, entry] of Object.entries(measured)) kept[n] = { startedAt, commit: code.commit, ...entry };
  writeVerifyScaleResults({ machine, sizes: kept });
  return kept;
}
