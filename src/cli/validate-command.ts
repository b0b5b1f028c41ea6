import { ExitCode } from '../errors.js';
import { runValidate } from '../pipeline/validate/run-validate.js';
import { formatValidateJson, formatValidateText } from '../report/validate-report.js';
import { planRun } from './plan-run.js';
import { retentionNotice } from '../pipeline/retention.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { openRunLog } from '../pipeline/run-log.js';

interface ValidateOptions extends CommonOptions {
  maxErrors?: number;
  since?: number;
}

export async function validateAction(opts: ValidateOptions): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(opts, false);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const { plans, warnings: planWarnings } = await planRun(config, baseDir);
  for (const w of planWarnings) process.stderr.write(`warning: ${w}\n`);
  const controller = new AbortController();
  const runLog = await openRunLog(config.checkpoint, { command: 'validate', config });
  if (runLog.problem) process.stderr.write(`warning: ${runLog.problem}\n`);
  const onSignal = (signal: NodeJS.Signals) => {
    runLog.interrupted(signal);
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  let status = 'failed';
  try {
    const result = await runValidate({
      plans,
      nowSec: Math.floor(Date.now() / 1000),
      importSoftDeleted: config.importSoftDeleted,
      sinceSec: opts.since,
      maxErrors: opts.maxErrors && opts.maxErrors > 0 ? opts.maxErrors : 0,
      signal: controller.signal,
      retentionDays: config.retentionDays,
      media: config.media,
    });
    // On stderr, as a warning: the report on stdout stays the list of problems.
    const notice = retentionNotice(result.beyondRetention, config.retentionDays);
    if (notice) process.stderr.write(`warning: ${notice}\n`);
    process.stdout.write(opts.json ? formatValidateJson(result) : formatValidateText(result));
    const { recordsRead, errorCount, warningCount, byRule, byEntity, stoppedEarly, beyondRetention } = result;
    const ended = { recordsRead, errorCount, warningCount, byRule, byEntity, stoppedEarly, beyondRetention };
    runLog.event('validate-end', ended);
    if (controller.signal.aborted) status = 'interrupted';
    else status = errorCount > 0 ? 'completed-with-errors' : 'completed';
    if (controller.signal.aborted) return ExitCode.interrupted;
    return result.errorCount > 0 ? ExitCode.rejected : ExitCode.ok;
  } finally {
    runLog.end(status);
    process.off('SIGINT', onSignal);
  }
}
