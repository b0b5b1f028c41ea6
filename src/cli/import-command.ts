import { ConfigError, ExitCode } from '../errors.js';
import type { ImportSummary } from '../pipeline/import/summary.js';
import { plural } from '../report/words.js';
import type { MigrateConfig } from '../config/schema.js';
import { planRun, type RunPlan } from './plan-run.js';
import { retentionNotice } from '../pipeline/retention.js';
import { BEYOND_RETENTION } from '../entities/types.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';
import { validateAction } from './validate-command.js';
import type { CommandContext } from './context.js';

interface ImportOptions extends CommonOptions {
  fresh?: boolean;
  strict?: boolean;
  dryRun?: boolean;
  since?: number;
  maxErrors?: number;
}

/** Two short lines: the first Ctrl+C is answered at once, and the way out is on a line of its own. */
const STOPPING_NOTICE =
  'stopping: finishing the batches in flight, then saving the checkpoint.\n  Press Ctrl+C again to stop at once.';

export async function importAction(ctx: CommandContext, opts: ImportOptions): Promise<number> {
  // A dry run is validate, whole: the same checks, media counts, run log and Ctrl+C.
  if (opts.dryRun) return validateAction(ctx, { ...opts, maxErrors: undefined });
  const { config, baseDir, warnings, chosen } = await loadCommandConfig(ctx, opts, true, true);
  ctx.warn(warnings);
  const plan = await planRun(config, baseDir, { writeIdMap: true });
  ctx.warn(plan.warnings);
  try {
    return await importPlan(ctx, opts, config, plan, chosen.has('retentionDays'));
  } finally {
    // Once committed there is nothing to discard; before, the migration's id map stays as it was.
    await plan.idMap?.discard();
  }
}

async function importPlan(
  ctx: CommandContext,
  opts: ImportOptions,
  config: MigrateConfig,
  plan: RunPlan,
  retentionChosen: boolean,
): Promise<number> {
  const { plans, sourcesIdentity, idRule, idMap, exportFolder } = plan;
  const nowSec = Math.floor(Date.now() / 1000);
  if (opts.strict) {
    const { runValidate } = await import('../pipeline/validate/validate-pass.js');
    const { importSoftDeleted, retentionDays } = config;
    const result = await runValidate({
      plans,
      nowSec,
      importSoftDeleted,
      sinceSec: opts.since,
      maxErrors: 0,
      retentionDays,
    });
    if (result.errorCount > 0) {
      const { formatValidateText } = await import('../report/validate-report.js');
      ctx.stderr.write(formatValidateText(result));
      const found = plural(result.errorCount, 'error');
      throw new ConfigError('STRICT_VALIDATION_FAILED', `--strict: validate found ${found}; nothing was sent`, {
        exitCode: ExitCode.rejected,
        hint: 'fix them, or run without --strict to send the valid records and put the others in the rejects file',
      });
    }
  }
  const { importInRun, importEnd } = await import('../pipeline/import/import-in-run.js');
  const spec: CommandRunSpec = {
    command: 'import',
    config,
    ledger: 'write',
    sourcesIdentity,
    idRule,
    fresh: Boolean(opts.fresh),
    json: opts.json,
    stoppingNotice: STOPPING_NOTICE,
    stepSummary: true,
  };
  const summary = await runInCommand(
    ctx,
    spec,
    async (run) => {
      const summary = await importInRun(run, {
        plans,
        idMap,
        exportFolder,
        fresh: Boolean(opts.fresh),
        sinceSec: opts.since,
        // Counting lines first: 0.1-0.3 s for 1M messages (240 MB), about 1% of their import (docs/sending.md).
        estimateTotals: true,
        retentionChosen,
      });
      // Said once, after the run: this run's skips are its own count of them (no reading ahead).
      const old = summary.totals.skippedBy[BEYOND_RETENTION] ?? 0;
      const notice = retentionNotice(old, config.retentionDays, nowSec);
      if (notice) run.events.warning(notice);
      return summary;
    },
    importEnd,
  );
  if (plan.unreadFiles?.length) summary.unreadFiles = plan.unreadFiles;
  await printSummary(ctx, summary, Boolean(opts.json));
  return summary.exitCode;
}

export async function printSummary(ctx: CommandContext, summary: ImportSummary, json: boolean): Promise<void> {
  if (json) {
    ctx.stdout.write(ctx.redact(`${JSON.stringify(summary)}\n`));
    return;
  }
  const stream = summary.status === 'failed' ? ctx.stderr : ctx.stdout;
  // Wrapped to a terminal's width; a log keeps its lines whole.
  const width = stream.isTTY && stream.columns ? stream.columns - 1 : undefined;
  const { formatSummaryText } = await import('../report/summary.js');
  stream.write(ctx.redact(formatSummaryText(summary, width)));
}
