import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load.js';
import { planSources } from '../sources/plan.js';
import { SANDBOX_DEFAULT_API_KEY } from '../sandbox/default-key.js';
import { printSummary } from './import-command.js';
import { runInCommand } from './command-run.js';
import { writeReport } from './report-command.js';
import { formatVerifyText } from '../report/verify-report.js';
import type { CommandContext } from './context.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export async function demoAction(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const json = Boolean(opts.json);
  const [{ startSandbox }, { importInRun, importEnd }, { verifyOrRepair, verifyEnd }, { VERIFY_TERMS }] =
    await Promise.all([
      import('../sandbox/index.js'),
      import('../pipeline/import/import-in-run.js'),
      import('../pipeline/repair/repair-in-run.js'),
      import('../report/figures.js'),
    ]);
  // A service-like pace (150 ms answers, 120 requests a minute) so the progress is there to see.
  const sandbox = await startSandbox({ apiKey: SANDBOX_DEFAULT_API_KEY, latencyMs: 150, requestsPerMinute: 120 });
  const work = await mkdtemp(path.join(tmpdir(), 'chat-migrate-demo-'));
  try {
    const { config, baseDir } = await loadConfig({
      cwd: FIXTURES,
      configFile: path.join(FIXTURES, '.migrate.config.json'),
      env: {},
      flags: {
        baseUrl: sandbox.url,
        apiKey: SANDBOX_DEFAULT_API_KEY,
        requestsPerMinute: 120,
        checkpoint: path.join(work, 'checkpoint.json'),
        rejects: path.join(work, 'rejects.ndjson'),
        restRequestsPerMinute: 6000,
      },
      requireApiKey: true,
    });
    if (!json) ctx.stderr.write(`Demo: importing ${FIXTURES} into a sandbox at ${sandbox.url}\n`);
    // Its own sandbox on loopback: a proxy of the environment could not reach it.
    const proxy = { noProxy: '' };
    const plans = await planSources(config.sources, baseDir);
    const spec = { command: 'demo', config, ledger: 'write', sourcesIdentity: config.sources, json, proxy } as const;
    const summary = await runInCommand(
      ctx,
      { ...spec, fresh: true },
      (run) => importInRun(run, { plans, fresh: true, estimateTotals: true, proxy }),
      importEnd,
    );
    await printSummary(ctx, summary, json);
    if (!json) {
      const held = sandbox.stats().perEntity;
      const line = Object.entries(held)
        .map(([k, v]) => `${v.stored} ${k}`)
        .join(', ');
      ctx.stdout.write(`The sandbox now holds ${line}. Checkpoint and rejects file: ${work}\n`);
    }
    // Then what a migration does next: read the service back and compare it with the export.
    if (!json) ctx.stderr.write('\nVerify: reading the sandbox back and comparing it with the export\n');
    const verified = await runInCommand(
      ctx,
      { ...spec, command: 'verify', ledger: 'existing', terms: VERIFY_TERMS },
      async (run) =>
        verifyOrRepair(run, { plans: await planSources(config.sources, baseDir), sample: 0, repair: false }),
      verifyEnd,
    );
    if (!json) ctx.stdout.write(formatVerifyText(verified));
    const report = path.join(work, 'migration-report.html');
    await writeReport({ checkpoint: config.checkpoint, rejects: config.rejects }, report, 'html');
    // With --json, stdout holds the one summary document: the path goes to stderr.
    (json ? ctx.stderr : ctx.stdout).write(`Migration report: ${report}\n`);
    return summary.exitCode;
  } finally {
    await sandbox.close();
  }
}
