import type { EntityName } from '../entities/types.js';
import { ExitCode } from '../errors.js';
import { chooseReporterMode, createReporter } from '../report/create-reporter.js';
import { formatVerifyJson, formatVerifyText } from '../report/verify-report.js';
import { VERIFY_TERMS } from '../report/figures.js';
import type { VerifyResult } from '../pipeline/verify/verify-result.js';
import { keepWasmCompileSmall } from './heap-budget.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { planRun } from './plan-run.js';
import { redact } from './run-command.js';
import { installStopSignals } from './signals.js';
import { appendStepSummary } from '../report/step-summary.js';

interface VerifyOptions extends CommonOptions {
  entities?: Set<EntityName>;
  sample?: number;
  since?: number;
  repair?: boolean;
}

export async function verifyAction(opts: VerifyOptions): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(opts, true);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const { plans } = await planRun(config, baseDir);
  const mode = opts.json ? 'lines' : chooseReporterMode(process.stderr, process.env);
  const reporter = await createReporter(mode, process.stderr, process.env, VERIFY_TERMS);
  const signals = installStopSignals(() => reporter.info('stopping: the reads under way are ended.'));
  let result: VerifyResult;
  try {
    // The HTTP stack loads only here, as import's does.
    keepWasmCompileSmall();
    const { verifyOrRepair } = await import('../pipeline/repair/run-repair.js');
    result = await verifyOrRepair({
      config,
      plans,
      entities: opts.entities,
      sample: opts.sample ?? 0,
      sinceSec: opts.since,
      repair: Boolean(opts.repair),
      events: reporter,
      stop: signals.stop,
      hardStop: signals.hardStop,
    });
  } finally {
    reporter.close();
    signals.dispose();
  }
  process.stdout.write(redact(opts.json ? formatVerifyJson(result) : formatVerifyText(result)));
  const problem = await appendStepSummary({ checkpoint: config.checkpoint, rejects: config.rejects });
  if (problem) process.stderr.write(`warning: ${problem}\n`);
  return result.ok ? ExitCode.ok : ExitCode.rejected;
}
