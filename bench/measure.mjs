// The measurements of the bench, each in child processes: the parse floor, validate, import into a
// sandbox process, the sandbox's own ceiling and the naive script. Each is wrapped by `observed`,
// which waits for a quiet machine and notes how much of it other processes took meanwhile.
import { cpus } from 'node:os';
import path from 'node:path';
import {
  BENCH,
  BIN,
  RUN_DIR,
  SANDBOX_KEY,
  cpuSnapshot,
  lastJson,
  othersShare,
  runNode,
  startSandboxChild,
  waitForQuiet,
  writeBenchConfig,
} from './children.mjs';
import { pct } from './table.mjs';

export const cpuSeconds = (usage) => (usage ? (usage.userCpuMs + usage.systemCpuMs) / 1000 : NaN);

/** The measured text, with a mark when other processes took a noticeable share of the machine meanwhile. */
export const busyNote = (...runs) => {
  const worst = Math.max(...runs.map((r) => r?.others ?? 0));
  return worst >= 0.1 ? ` [others used ${pct(worst, 0)} CPU]` : '';
};

/** options: { concurrency, quietWaitMs, log } */
export function createMeasurements({ concurrency, quietWaitMs, log }) {
  /** Per measurement: the busy share before it and the share others took while it ran. */
  const interference = [];

  const writeConfig = (name, config) => writeBenchConfig(path.join(RUN_DIR, name), config);

  const sourcesOf = (ds, format, entities) => {
    const sources = {};
    for (const e of entities) sources[e] = { path: e === 'messages' ? ds.messages[format] : ds[e] };
    return sources;
  };

  /**
   * Runs one measurement on a machine other people share: waits for it to go quiet first, then notes
   * which share of the CPUs other processes took while it ran (machine busy time less our own CPU).
   */
  async function observed(label, fn) {
    const busyBefore = quietWaitMs > 0 ? await waitForQuiet({ maxMs: quietWaitMs, log }) : undefined;
    const before = cpuSnapshot();
    const parentBefore = process.cpuUsage();
    const result = await fn();
    const after = cpuSnapshot();
    const parent = process.cpuUsage(parentBefore);
    const others = othersShare(before, after, result.cpu + (parent.user + parent.system) / 1e6, cpus().length);
    interference.push({ label, busyBefore, others });
    result.others = others;
    return result;
  }

  const measureFloor = (format, file, expected) =>
    observed(`floor ${format}`, async () => {
      const result = await runNode(path.join(BENCH, 'parse-floor.mjs'), [format, file]);
      const out = lastJson(result, `parse floor ${format}`);
      if (out.records !== expected)
        throw new Error(`parse floor ${format}: read ${out.records} records, generated ${expected}`);
      return {
        records: out.records,
        ms: out.ms,
        perSec: out.records / (out.ms / 1000),
        rss: result.rss,
        cpu: cpuSeconds(result.rss),
      };
    });

  const runValidate = (name, ds, format, nodeFlags = []) =>
    observed(name, async () => {
      // validate is offline, but the config still has to name a target (CONFIG_MISSING_TARGET otherwise).
      const config = writeConfig(name, {
        baseUrl: 'http://127.0.0.1:9',
        sources: sourcesOf(ds, format, ['users', 'groups', 'messages']),
      });
      const result = await runNode(BIN, ['validate', '--json', '-c', config], { nodeFlags });
      const out = lastJson(result, `validate ${format}`);
      return {
        records: out.recordsRead,
        errors: out.errorCount,
        warnings: out.warningCount,
        ms: result.ms,
        perSec: out.recordsRead / (result.ms / 1000),
        rss: result.rss,
        cpu: cpuSeconds(result.rss),
        exit: result.code,
      };
    });

  /**
   * One `import` into a fresh sandbox process. Samples the sandbox's request count every 500 ms so the
   * rate can be judged over a steady window, not only end to end.
   */
  const runImport = (name, ds, format, { rpm, sandbox = {}, nodeFlags = [] }) =>
    observed(name, async () => {
      const sb = await startSandboxChild(sandbox);
      try {
        const config = writeConfig(name, {
          baseUrl: sb.url,
          concurrency,
          requestsPerMinute: rpm,
          sources: sourcesOf(ds, format, ['users', 'groups', 'members', 'messages']),
        });
        const samples = [];
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            const s = await sb.stats().catch(() => undefined);
            if (s) samples.push({ t: Date.now(), requests: s.requests, rateLimited: s.rateLimited });
            await new Promise((r) => setTimeout(r, 500));
          }
        })();
        const result = await runNode(BIN, ['import', '--json', '--fresh', '-c', config], {
          env: { MIGRATE_API_KEY: SANDBOX_KEY },
          nodeFlags,
        });
        sampling = false;
        await sampler;
        const summary = lastJson(result, `import ${name}`);
        const stats = await sb.stats();
        const sandboxUsage = await sb.stop();
        return {
          summary,
          stats,
          samples,
          ms: result.ms,
          rss: result.rss,
          sandboxUsage,
          cpu: cpuSeconds(result.rss) + cpuSeconds(sandboxUsage),
          exit: result.code,
        };
      } catch (error) {
        await sb.stop();
        throw error;
      }
    });

  /** The most the sandbox absorbs here: pre-serialised bodies, no reading, mapping or checkpoint. */
  const measureSandboxCeiling = (file, records) =>
    observed('sandbox ceiling', async () => {
      const sb = await startSandboxChild({});
      let sandboxUsage;
      try {
        const result = await runNode(
          path.join(BENCH, 'sandbox-ceiling.mjs'),
          [file, sb.url, String(records), String(concurrency)],
          {
            env: { MIGRATE_API_KEY: SANDBOX_KEY },
          },
        );
        const out = lastJson(result, 'sandbox ceiling');
        sandboxUsage = await sb.stop();
        return { ...out, rss: result.rss, cpu: cpuSeconds(result.rss) + cpuSeconds(sandboxUsage) };
      } finally {
        if (!sandboxUsage) await sb.stop();
      }
    });

  const runNaive = (name, ds) =>
    observed(name, async () => {
      const sb = await startSandboxChild({});
      let sandboxUsage;
      try {
        const result = await runNode(path.join(BENCH, 'naive-import.mjs'), [ds.messages.json, sb.url], {
          env: { MIGRATE_API_KEY: SANDBOX_KEY },
          nodeFlags: ['--max-old-space-size=8192'],
        });
        const out = lastJson(result, 'naive import');
        const stats = await sb.stats();
        sandboxUsage = await sb.stop();
        return {
          ...out,
          wallMs: result.ms,
          perSec: out.records / (result.ms / 1000),
          rss: result.rss,
          stored: stats.perEntity.messages.stored,
          cpu: cpuSeconds(result.rss) + cpuSeconds(sandboxUsage),
        };
      } finally {
        if (!sandboxUsage) await sb.stop();
      }
    });

  return { interference, measureFloor, runValidate, runImport, measureSandboxCeiling, runNaive };
}
