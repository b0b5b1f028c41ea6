import type { Run, RunEnd, RunSpec } from '../pipeline/run/run.js';
import type { OutcomeTerms } from '../report/figures.js';
import type { CommandContext } from './context.js';

/** A command's run as the CLI starts it: the run module's spec less the events, which are drawn here. */
export interface CommandRunSpec extends Omit<RunSpec, 'events' | 'signals' | 'env' | 'cwd'> {
  /** --json: plain lines on stderr, the one document on stdout. */
  json?: boolean;
  /** The words a phase's outcome is drawn with (verify's, or import's by default). */
  terms?: OutcomeTerms;
  /** Appends the report's Markdown to GITHUB_STEP_SUMMARY once the run has ended (docs/report.md). */
  stepSummary?: boolean;
}

/**
 * Every command that reads state or touches the network runs here: a reporter for the terminal or
 * CI (bars, or lines), the run module around the command's body, and the step summary after it.
 */
export async function runInCommand<T>(
  ctx: CommandContext,
  spec: CommandRunSpec,
  body: (run: Run) => Promise<T>,
  end: (result: T, run: Run) => RunEnd,
): Promise<T> {
  const [{ chooseReporterMode, createReporter }, { withRun }] = await Promise.all([
    import('../report/create-reporter.js'),
    import('../pipeline/run/run.js'),
  ]);
  const clock = spec.clock ?? ctx.clock;
  const mode = spec.json ? 'lines' : chooseReporterMode(ctx.stderr, ctx.env);
  const reporter = await createReporter(mode, ctx.stderr, ctx.env, spec.terms, clock);
  try {
    return await withRun(
      { ...spec, clock, events: reporter, signals: ctx.signals, exit: ctx.exit, env: ctx.env, cwd: ctx.cwd },
      body,
      end,
    );
  } finally {
    reporter.close();
    if (spec.stepSummary) {
      const { appendStepSummary } = await import('../report/step-summary.js');
      const { checkpoint, rejects } = spec.config;
      const problem = await appendStepSummary({ checkpoint, rejects }, ctx.env);
      if (problem) ctx.warn([problem]);
    }
  }
}
