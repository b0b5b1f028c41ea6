import { ExitCode } from '../errors.js';
import { planRun } from './plan-run.js';
import { retentionNotice, retentionOutcome } from '../pipeline/retention.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';
import type { CommandContext } from './context.js';

export interface ValidateOptions extends CommonOptions {
  maxErrors?: number;
  since?: number;
}

/** validate, and `import --dry-run`, which is the same run. */
export async function validateAction(ctx: CommandContext, opts: ValidateOptions): Promise<number> {
  const { config, baseDir, warnings, chosen } = await loadCommandConfig(ctx, opts, false, true);
  ctx.warn(warnings);
  const { plans, exportFolder, unreadFiles, warnings: planWarnings } = await planRun(config, baseDir);
  ctx.warn(planWarnings);
  const [{ runValidate }, { checkBeyondWindow }, { allMessagesSkipped, formatValidateJson, formatValidateText }] =
    await Promise.all([
      import('../pipeline/validate/validate-pass.js'),
      import('../pipeline/validate/beyond-window.js'),
      import('../report/validate-report.js'),
    ]);
  const spec: CommandRunSpec = { command: 'validate', config, ledger: 'none', json: opts.json };
  const nowSec = Math.floor(Date.now() / 1000);
  const outcome = await runInCommand(
    ctx,
    spec,
    async (run) => {
      const options = {
        plans,
        nowSec,
        importSoftDeleted: config.importSoftDeleted,
        sinceSec: opts.since,
        maxErrors: opts.maxErrors && opts.maxErrors > 0 ? opts.maxErrors : 0,
        signal: run.stop,
        retentionDays: config.retentionDays,
        media: config.media,
        exportFolder,
      };
      const result = await runValidate(options);
      await checkBeyondWindow(options, result);
      if (unreadFiles?.length) result.unreadFiles = unreadFiles;
      // Messages read and all of them skipped: the import would send none of the conversations.
      if (allMessagesSkipped(result) && opts.since === undefined && !result.stoppedEarly && !run.stop.aborted)
        result.allMessagesSkipped = result.byEntity.messages?.records;
      // The text report names them; beside --json's document, a person still reads the warning on stderr.
      const notice = opts.json ? retentionNotice(result.beyondRetention, config.retentionDays, nowSec) : undefined;
      if (notice) ctx.stderr.write(`warning: ${notice}\n`);
      const old = retentionOutcome(result.beyondRetention, config.retentionDays, nowSec, chosen.has('retentionDays'));
      ctx.stdout.write(opts.json ? formatValidateJson(result, old) : formatValidateText(result, old));
      const { recordsRead, errorCount, warningCount, byRule, byEntity, stoppedEarly, beyondRetention } = result;
      const ended = { recordsRead, errorCount, warningCount, byRule, byEntity, stoppedEarly, beyondRetention };
      run.log.event('validate-end', ended);
      // Messages left out by a window nobody set are not a decision yet: exit 3, as for errors.
      const undecided = old !== undefined && !old.chosen;
      // An export of no record is no success: something is not where the config says.
      const empty = result.recordsRead === 0 && !run.stop.aborted;
      const skippedAll = result.allMessagesSkipped !== undefined;
      return { result, interrupted: run.stop.aborted, failed: undecided || empty || skippedAll };
    },
    ({ result, interrupted }) => ({
      status: interrupted ? 'interrupted' : result.errorCount > 0 ? 'completed-with-errors' : 'completed',
    }),
  );
  if (outcome.interrupted) return ExitCode.interrupted;
  return outcome.result.errorCount > 0 || outcome.failed ? ExitCode.rejected : ExitCode.ok;
}
