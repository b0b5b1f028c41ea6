import { type Clock, systemClock } from '../clock.js';
import { OUTCOME_TERMS, type OutcomeTerms } from './figures.js';
import { LineReporter } from './line-reporter.js';
import { colourWanted, type Reporter } from './reporter.js';

export type ReporterMode = 'tty' | 'lines' | 'quiet';

/** Where progress is drawn: a terminal says it is one, and its width. */
export type ReporterStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * TTY bars when a person watches; plain lines in CI or a pipe (no spinners, no escape codes), and on a
 * terminal that reports no size (`script`, some CI and editor ptys): there a spinner, unable to
 * count its lines, wrote clearing codes without end (a bare spinner: 5.3 MB in half a second).
 */
export function chooseReporterMode(stream: ReporterStream, env: NodeJS.ProcessEnv): ReporterMode {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return stream.isTTY && !ci && (stream.columns ?? 0) > 0 ? 'tty' : 'lines';
}

/** The terminal UI packages load only when a terminal shows them: validate and CI runs start faster. */
export async function createReporter(
  mode: ReporterMode,
  stream: ReporterStream,
  env: NodeJS.ProcessEnv,
  /** The words of a phase's outcome (figures.ts): import's, or verify's. */
  terms: OutcomeTerms = OUTCOME_TERMS,
  /** The lines' 5-second interval and the retry countdown are on this clock. */
  clock: Clock = systemClock,
): Promise<Reporter> {
  if (mode === 'tty') {
    // Only a terminal is drawn on with bars, and a terminal is the process's own stream.
    const { TtyReporter } = await import('./tty-reporter.js');
    return new TtyReporter(stream as NodeJS.WriteStream, colourWanted(env), terms, clock);
  }
  if (mode === 'lines') return new LineReporter(stream, () => clock.now(), terms);
  return { phaseStarted() {}, progress() {}, phaseFinished() {}, retrying() {}, warning() {}, info() {}, close() {} };
}
