// The bench's `verify` section (issue 15): the main export (1M messages at scale 1) imported into a
// sandbox process that keeps records, then `verify` read it all back, unthrottled: its records/s, its
// read requests (what the default 600 a minute would take) and its own peak RSS.
import path from 'node:path';
import { BIN, RUN_DIR, SANDBOX_KEY, lastJson, runNode, startSandboxChild, writeBenchConfig } from './children.mjs';
import { mb, num } from './table.mjs';

const ENTITIES = ['users', 'groups', 'members', 'messages'];

/** Verify's RSS budget, the same as import's and validate's (issue 15 point 5). */
const MEMORY_LIMIT = 150 * 2 ** 20;

/** A fresh folder with a config importing `ds` into the sandbox at `url`, unthrottled; returns the config's path. */
export function writeVerifyConfig(dir, url, ds, concurrency) {
  const sources = Object.fromEntries(ENTITIES.map((e) => [e, { path: e === 'messages' ? ds.messages.ndjson : ds[e] }]));
  return writeBenchConfig(dir, { baseUrl: url, concurrency, restRequestsPerMinute: 1e9, sources });
}

export async function measureVerify({ ds, concurrency, log, row }) {
  const sb = await startSandboxChild({ keepRecords: true });
  try {
    const config = writeVerifyConfig(path.join(RUN_DIR, 'verify'), sb.url, ds, concurrency);
    const env = { MIGRATE_API_KEY: SANDBOX_KEY };
    log('verify: importing the main export into a sandbox that keeps records ...');
    const imported = await runNode(BIN, ['import', '--json', '--fresh', '-c', config], { env });
    const summary = lastJson(imported, 'import for verify');
    log(
      `verify: imported ${num(summary.totals.imported)} records in ${(imported.ms / 1000).toFixed(1)} s; verifying ...`,
    );
    const run = await runNode(BIN, ['verify', '--json', '-c', config], { env });
    const result = lastJson(run, 'verify');
    const records = ENTITIES.reduce((n, e) => n + (result.entities[e]?.expected ?? 0), 0);
    const present = ENTITIES.reduce((n, e) => n + (result.entities[e]?.present ?? 0), 0);
    const perSec = records / (run.ms / 1000);
    const rss = run.rss?.maxRssBytes;
    const atDefault = result.requests / 600;
    row(
      'verify',
      `verify ${num(records)} records (${num(result.entities.messages?.expected ?? 0)} messages), reads unthrottled`,
      `${num(Math.round(perSec))} rec/s (${(run.ms / 1000).toFixed(1)} s), exit ${run.code}, ${num(present)} present`,
      'exit 0',
      run.code === 0 && present === records,
    );
    row(
      'verify',
      'verify: read requests (1,000 records a page; members per group)',
      `${num(result.requests)} (${atDefault.toFixed(1)} min at the default 600/min)`,
      '-',
      null,
    );
    row(
      'memory',
      `verify peak RSS at ${num(result.entities.messages?.expected ?? 0)} messages`,
      mb(rss),
      '<= 150 MB',
      rss <= MEMORY_LIMIT,
    );
    return { ms: run.ms, perSec, requests: result.requests, rss: run.rss, importMs: imported.ms, exit: run.code };
  } finally {
    await sb.stop();
  }
}
