// The bench's `delta` section: an export of `messages` messages in files of a million
// (users, groups and members as at scale 1) imported whole into a sandbox process, then imported again
// with nothing new (every message file unchanged: not read again), then with one new file of 1,000
// messages. `--delta-before <bin>` also times the nothing-new import with another build (the code
// before the change) over the same checkpoint. Results go to bench/delta-results.json.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  BENCH,
  BIN,
  RUN_DIR,
  SANDBOX_KEY,
  lastJson,
  runNode,
  startSandboxChild,
  writeBenchConfig,
} from './children.mjs';
import { ensureDeltaDataset, writeDeltaFile } from './delta-data.mjs';
import { DATA_DIR } from './generate.mjs';
import { mb, num, rowOf } from './table.mjs';

export const DELTA_RESULTS = path.join(BENCH, 'delta-results.json');

export const readDeltaResults = () =>
  existsSync(DELTA_RESULTS) ? JSON.parse(readFileSync(DELTA_RESULTS, 'utf8')) : undefined;

/** The targets: nothing new at 10M in 5 s, one new file of 1,000 messages in 10 s. */
const NOTHING_NEW_MS = 5_000;
const ONE_FILE_MS = 10_000;
const NEW_MESSAGES = 1_000;

/**
 * `reuse`: keep the work folder's checkpoint from an earlier run of the section (its import of
 * everything, which takes most of an hour on a busy machine) and time only the runs after it.
 */
export async function measureDelta({ messages, concurrency, log, row, before, reuse = false }) {
  const dir = path.join(DATA_DIR, `delta-m${messages}`);
  const ds = ensureDeltaDataset({ dir, users: 10_000, groups: 1_000, members: 50_000, messages }, log);
  rmSync(ds.nextMessageFile, { force: true });
  const sb = await startSandboxChild();
  try {
    const work = path.join(RUN_DIR, 'delta');
    const reused = reuse && existsSync(path.join(work, 'checkpoint.json'));
    const sources = {
      users: { path: ds.users },
      groups: { path: ds.groups },
      members: { path: ds.members },
      messages: { path: ds.messages },
    };
    const config = writeBenchConfig(work, { baseUrl: sb.url, concurrency, sources }, { keep: reused });
    const env = { MIGRATE_API_KEY: SANDBOX_KEY };
    const importRun = async (label, bin = BIN, extra = []) => {
      const timeoutMs = 3 * 3600_000;
      const run = await runNode(bin, ['import', '--json', '-c', config, ...extra], { env, cwd: work, timeoutMs });
      const summary = lastJson(run, label);
      log(`delta: ${label}: ${(run.ms / 1000).toFixed(1)} s, exit ${run.code}, peak ${mb(run.rss?.maxRssBytes)}`);
      return { ms: run.ms, exit: run.code, rss: run.rss, totals: summary.totals, messages: summary.entities.messages };
    };
    const total = (p) => p.users + p.groups + p.members + p.messages;
    log(`delta: importing ${num(total(ds.params))} records (${ds.messageFiles.length} message files) ...`);
    const full = reused ? undefined : await importRun('import, all new', BIN, ['--fresh']);
    if (reused) {
      // This run's sandbox stands in for the last one's (another port), and a run cut short then (or
      // another build's) is finished first, so the next run starts from a checkpoint this code wrote.
      const file = path.join(work, 'checkpoint.json');
      const checkpoint = JSON.parse(readFileSync(file, 'utf8'));
      checkpoint.target.baseUrl = sb.url;
      writeFileSync(file, JSON.stringify(checkpoint));
      await importRun('import to settle the reused checkpoint');
    }
    const nothingNew = await importRun('import again, nothing new');
    const added = writeDeltaFile(ds, NEW_MESSAGES);
    let oneFile;
    try {
      oneFile = await importRun(`import, one new file of ${num(NEW_MESSAGES)} messages`);
    } finally {
      rmSync(added, { force: true });
    }
    // Last, so that the code before cannot change what the runs above start from.
    const beforeRun = before ? await importRun('import again, nothing new, code before', before) : undefined;
    const records = total(ds.params);
    const label = `${num(messages)} messages`;
    if (full)
      row(
        'delta',
        `import at ${label}, all new (${ds.messageFiles.length} message files)`,
        `${(full.ms / 1000).toFixed(1)} s, imported ${num(full.totals.imported)}, peak ${mb(full.rss?.maxRssBytes)}`,
        'exit 0',
        full.exit === 0 && full.totals.imported === records,
      );
    const noted = beforeRun ? ` (before: ${(beforeRun.ms / 1000).toFixed(1)} s)` : '';
    row(
      'delta',
      `import again at ${label}, nothing new`,
      `${(nothingNew.ms / 1000).toFixed(1)} s${noted}, ` +
        `${num(nothingNew.messages.unchangedFiles ?? 0)} files unchanged, ` +
        `done earlier ${num(nothingNew.totals.resumed)} of ${num(nothingNew.totals.read)} read`,
      `<= ${NOTHING_NEW_MS / 1000} s, all done earlier`,
      nothingNew.exit === 0 &&
        nothingNew.ms <= NOTHING_NEW_MS &&
        nothingNew.totals.read === records &&
        nothingNew.totals.resumed === records,
    );
    row(
      'delta',
      `import at ${label} + one new file of ${num(NEW_MESSAGES)} messages`,
      `${(oneFile.ms / 1000).toFixed(1)} s, imported ${num(oneFile.totals.imported)}, ` +
        `done earlier ${num(oneFile.totals.resumed)}`,
      `<= ${ONE_FILE_MS / 1000} s, only the new sent`,
      oneFile.exit === 0 &&
        oneFile.ms <= ONE_FILE_MS &&
        oneFile.totals.imported === NEW_MESSAGES &&
        oneFile.totals.alreadyPresent === 0,
    );
    return { messages, files: ds.messageFiles.length, records, reused, full, nothingNew, before: beforeRun, oneFile };
  } finally {
    await sb.stop();
  }
}

/** Runs the section as `npm run bench -- --only delta` does and keeps its result and rows. */
export async function runDeltaSection({ opts, concurrency, main, machine, code, startedAt, log, row }) {
  const before = opts['delta-before'] && path.resolve(opts['delta-before']);
  const rows = [];
  const keep = (...r) => {
    rows.push(rowOf(...r));
    row(...r);
  };
  const reuse = opts['delta-reuse'];
  const measured = await measureDelta({ messages: main.messages, concurrency, log, row: keep, before, reuse });
  const result = { startedAt, commit: code.commit, machine, ...measured, rows };
  writeFileSync(DELTA_RESULTS, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
