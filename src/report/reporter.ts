import type { EntityName } from '../entities/types.js';
import type { EntityCounts, RunEvents } from '../pipeline/events.js';

/** A RunEvents that draws; `close()` leaves the terminal clean before the summary prints. */
export interface Reporter extends RunEvents {
  close(): void;
}

export type ReporterMode = 'tty' | 'lines' | 'quiet';

/**
 * TTY bars when a person watches; plain lines in CI or a pipe (no spinners, no escape codes), and on a
 * terminal that reports no size (`script`, some CI and editor ptys): there ora's spinner, unable to
 * count its lines, wrote clearing codes without end (a bare spinner: 5.3 MB in half a second).
 */
export function chooseReporterMode(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): ReporterMode {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return stream.isTTY && !ci && (stream.columns ?? 0) > 0 ? 'tty' : 'lines';
}

/** The terminal UI packages load only when a terminal shows them: validate and CI runs start faster. */
export async function createReporter(mode: ReporterMode, stream: NodeJS.WriteStream): Promise<Reporter> {
  if (mode === 'tty') return new (await import('./tty-reporter.js')).TtyReporter(stream);
  if (mode === 'lines') return new LineReporter(stream);
  return { phaseStarted() {}, progress() {}, phaseFinished() {}, warning() {}, info() {}, close() {} };
}

export const rate = (c: EntityCounts): string => (c.elapsedMs > 0 ? ((c.imported + c.alreadyPresent) / (c.elapsedMs / 1000)).toFixed(1) : '0.0');

/** Progress lines every few seconds, for CI logs and pipes. */
class LineReporter implements Reporter {
  private lastAt = 0;
  static readonly EVERY_MS = 5000;

  constructor(private readonly out: NodeJS.WritableStream) {}

  phaseStarted(entity: EntityName): void {
    this.out.write(`[${entity}] started\n`);
    this.lastAt = Date.now();
  }
  progress(entity: EntityName, c: EntityCounts): void {
    if (Date.now() - this.lastAt < LineReporter.EVERY_MS) return;
    this.lastAt = Date.now();
    this.out.write(`[${entity}] ${this.describe(c)}\n`);
  }
  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    this.out.write(`[${entity}] ${completed ? 'finished' : 'stopped'}: ${this.describe(c)}\n`);
  }
  warning(message: string): void {
    this.out.write(`warning: ${message}\n`);
  }
  info(message: string): void {
    this.out.write(`${message}\n`);
  }
  close(): void {}

  private describe(c: EntityCounts): string {
    return `${c.read} read, ${c.imported} imported, ${c.alreadyPresent} already there, ${c.rejected} rejected, ${c.skipped} skipped, ${rate(c)} records/s`;
  }
}
