import { ConfigError, ExitCode } from '../errors.js';
import { runValidate } from '../pipeline/validate/run-validate.js';
import { chooseReporterMode, createReporter } from '../report/create-reporter.js';
import type { ImportSummary } from '../pipeline/import/summary.js';
import { formatSummaryText } from '../report/summary.js';
import { plural } from '../report/words.js';
import { formatValidateJson, formatValidateText } from '../report/validate-report.js';
import type { MigrateConfig } from '../config/schema.js';
import { planRun, type RunPlan } from './plan-run.js';
import { countBeyondRetention } from '../pipeline/import/count-beyond-retention.js';
import { retentionCutoff, retentionNotice } from '../pipeline/retention.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { redact } from './run-command.js';
import { installStopSignals } from './signals.js';
import { appendStepSummary } from '../report/step-summary.js';

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

export async function importAction(opts: ImportOptions): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(opts, !opts.dryRun);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const plan = await planRun(config, baseDir, { writeIdMap: !opts.dryRun });
  for (const w of plan.warnings) process.stderr.write(`warning: ${w}\n`);
  try {
    return await importPlan(opts, config, plan);
  } finally {
    // Once committed there is nothing to discard; before, the migration's id map stays as it was.
    await plan.idMap?.discard();
  }
}

async function importPlan(opts: ImportOptions, config: MigrateConfig, plan: RunPlan): Promise<number> {
  const { plans, sourcesIdentity, idMap, exportFolder } = plan;
  const nowSec = Math.floor(Date.now() / 1000);
  let beyondRetention: number | undefined;

  if (opts.dryRun || opts.strict) {
    const result = await runValidate({
      plans,
      nowSec,
      importSoftDeleted: config.importSoftDeleted,
      sinceSec: opts.since,
      maxErrors: 0,
      retentionDays: config.retentionDays,
    });
    beyondRetention = result.beyondRetention;
    if (opts.dryRun) {
      const notice = retentionNotice(beyondRetention, config.retentionDays);
      if (notice) process.stderr.write(`warning: ${notice}\n`);
      process.stdout.write(opts.json ? formatValidateJson(result) : formatValidateText(result));
      return result.errorCount > 0 ? ExitCode.rejected : ExitCode.ok;
    }
    if (result.errorCount > 0) {
      process.stderr.write(formatValidateText(result));
      const found = plural(result.errorCount, 'error');
      throw new ConfigError('STRICT_VALIDATION_FAILED', `--strict: validate found ${found}; nothing was sent`, {
        exitCode: ExitCode.rejected,
        hint: 'fix them, or run without --strict to send the valid records and put the others in the rejects file',
      });
    }
  }

  const mode = opts.json ? 'lines' : chooseReporterMode(process.stderr, process.env);
  const reporter = await createReporter(mode, process.stderr);
  const signals = installStopSignals(() => reporter.info(STOPPING_NOTICE));
  let summary: ImportSummary;
  try {
    // Said once, before anything is sent: the service would take these messages and never show them.
    const cutoff = retentionCutoff(nowSec, config.retentionDays);
    if (cutoff !== undefined && beyondRetention === undefined && !(opts.since !== undefined && opts.since >= cutoff)) {
      const { importSoftDeleted } = config;
      beyondRetention = await countBeyondRetention(plans, {
        cutoffSec: cutoff,
        importSoftDeleted,
        sinceSec: opts.since,
      });
    }
    const notice = retentionNotice(beyondRetention ?? 0, config.retentionDays);
    if (notice) reporter.warning(notice);
    // The HTTP stack loads only for a run that sends.
    const { runImportSession } = await import('../pipeline/import/import-session.js');
    summary = await runImportSession({
      config,
      plans,
      sourcesIdentity,
      idMap,
      exportFolder,
      fresh: Boolean(opts.fresh),
      sinceSec: opts.since,
      events: reporter,
      // Counting lines first: 0.1-0.3 s for 1M messages (240 MB), about 1% of their import (docs/sending.md).
      estimateTotals: true,
      stop: signals.stop,
      hardStop: signals.hardStop,
    });
  } finally {
    reporter.close();
    signals.dispose();
  }
  printSummary(summary, Boolean(opts.json));
  // A GitHub Actions step shows the report's overview on its summary page (docs/report.md).
  const problem = await appendStepSummary({ checkpoint: config.checkpoint, rejects: config.rejects });
  if (problem) process.stderr.write(`warning: ${problem}\n`);
  return summary.exitCode;
}

export function printSummary(summary: ImportSummary, json: boolean): void {
  if (json) {
    process.stdout.write(redact(`${JSON.stringify(summary)}\n`));
    return;
  }
  const stream = summary.status === 'failed' ? process.stderr : process.stdout;
  // Wrapped to a terminal's width; a log keeps its lines whole.
  const width = stream.isTTY && stream.columns ? stream.columns - 1 : undefined;
  stream.write(redact(formatSummaryText(summary, width)));
}
