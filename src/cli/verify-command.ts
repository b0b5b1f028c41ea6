import type { EntityName } from '../entities/types.js';
import { ExitCode } from '../errors.js';
import { keepWasmCompileSmall } from './heap-budget.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { planRun } from './plan-run.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';
import type { CommandContext } from './context.js';

interface VerifyOptions extends CommonOptions {
  entities?: Set<EntityName>;
  sample?: number;
  since?: number;
  repair?: boolean;
}

export async function verifyAction(ctx: CommandContext, opts: VerifyOptions): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(ctx, opts, true, true);
  ctx.warn(warnings);
  const { plans, idRule } = await planRun(config, baseDir);
  // The HTTP stack loads only here, as import's does.
  keepWasmCompileSmall();
  const [{ verifyOrRepair, verifyEnd }, { formatVerifyJson, formatVerifyText }, { VERIFY_TERMS }] = await Promise.all([
    import('../pipeline/repair/repair-in-run.js'),
    import('../report/verify-report.js'),
    import('../report/figures.js'),
  ]);
  const repair = Boolean(opts.repair);
  const spec: CommandRunSpec = {
    command: repair ? 'verify --repair' : 'verify',
    config,
    ledger: 'existing',
    idRule,
    json: opts.json,
    terms: VERIFY_TERMS,
    stoppingNotice: 'stopping: the reads under way are ended.',
    stepSummary: true,
  };
  const { entities, since } = opts;
  const result = await runInCommand(
    ctx,
    spec,
    (run) => verifyOrRepair(run, { plans, entities, sample: opts.sample ?? 0, sinceSec: since, repair }),
    verifyEnd,
  );
  // The migration as the ledger now says it, this verdict included (nothing when no import ran here).
  const [{ readCheckpoint }, { ledgerView }] = await Promise.all([
    import('../checkpoint/store.js'),
    import('../checkpoint/ledger.js'),
  ]);
  const data = await readCheckpoint(config.checkpoint);
  const view = data && ledgerView(data);
  const migration = view && { state: view.state, statusLine: view.statusLine };
  if (opts.json) ctx.stdout.write(ctx.redact(formatVerifyJson(migration ? { ...result, migration } : result)));
  else
    ctx.stdout.write(
      ctx.redact(`${formatVerifyText(result)}${migration ? `Migration: ${migration.statusLine}\n` : ''}`),
    );
  return result.ok ? ExitCode.ok : ExitCode.rejected;
}
