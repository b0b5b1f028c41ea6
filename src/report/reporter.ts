import cliProgress from 'cli-progress';
import ora, { type Ora } from 'ora';
import type { EntityName } from '../entities/types.js';
import type { EntityCounts, RunEvents } from '../pipeline/events.js';

/** A RunEvents that draws; `close()` leaves the terminal clean before the summary prints. */
export interface Reporter extends RunEvents {
  close(): void;
}

export type ReporterMode = 'tty' | 'lines' | 'quiet';

/** TTY bars when a person watches; plain lines in CI or a pipe (no spinners, no escape codes). */
export function chooseReporterMode(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): ReporterMode {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return stream.isTTY && !ci ? 'tty' : 'lines';
}

export function createReporter(mode: ReporterMode, stream: NodeJS.WriteStream): Reporter {
  if (mode === 'tty') return new TtyReporter(stream);
  if (mode === 'lines') return new LineReporter(stream);
  return { phaseStarted() {}, progress() {}, phaseFinished() {}, warning() {}, info() {}, close() {} };
}

const rate = (c: EntityCounts): string => (c.elapsedMs > 0 ? ((c.imported + c.alreadyPresent) / (c.elapsedMs / 1000)).toFixed(1) : '0.0');

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
  phaseFinished(entity: EntityName, c: EntityCounts): void {
    this.out.write(`[${entity}] finished: ${this.describe(c)}\n`);
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

/** A spinner while a phase starts, then a bar per entity with records, rate and (when known) ETA. */
class TtyReporter implements Reporter {
  private spinner: Ora | undefined;
  private readonly bars: cliProgress.MultiBar;
  private readonly bar = new Map<EntityName, cliProgress.SingleBar>();

  constructor(private readonly out: NodeJS.WriteStream) {
    this.bars = new cliProgress.MultiBar(
      {
        stream: out,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
        fps: 8,
        format: (options, params, payload: { entity: string; rate: string; imported: number; rejected: number; eta: string }) => {
          const total = params.total > 0;
          const bar = total ? `${options.barCompleteString!.slice(0, Math.round(params.progress * 30))}${options.barIncompleteString!.slice(0, 30 - Math.round(params.progress * 30))} ` : '';
          const of = total ? `/${params.total}` : '';
          return `${payload.entity.padEnd(9)} ${bar}${params.value}${of} records | ${payload.rate} rec/s | ${payload.imported} imported, ${payload.rejected} rejected${total ? ` | ETA ${payload.eta}` : ''}`;
        },
      },
      cliProgress.Presets.shades_classic,
    );
  }

  phaseStarted(entity: EntityName, expected: number | undefined): void {
    this.spinner = ora({ text: `starting ${entity}`, stream: this.out }).start();
    const bar = this.bars.create(expected ?? 0, 0, { entity, rate: '0.0', imported: 0, rejected: 0, eta: '?' });
    this.bar.set(entity, bar);
  }
  progress(entity: EntityName, c: EntityCounts): void {
    this.stopSpinner();
    const bar = this.bar.get(entity);
    if (!bar) return;
    const done = c.imported + c.alreadyPresent + c.rejected + c.skipped + c.resumed;
    const perSec = c.elapsedMs > 0 ? done / (c.elapsedMs / 1000) : 0;
    const total = bar.getTotal();
    const eta = total > 0 && perSec > 0 ? `${Math.max(0, Math.round((total - done) / perSec))}s` : '?';
    bar.update(done, { entity, rate: rate(c), imported: c.imported + c.alreadyPresent, rejected: c.rejected, eta });
  }
  phaseFinished(entity: EntityName, c: EntityCounts): void {
    this.progress(entity, c);
    this.bar.get(entity)?.stop();
  }
  warning(message: string): void {
    this.stopSpinner();
    this.bars.log(`warning: ${message}\n`);
  }
  info(message: string): void {
    this.bars.log(`${message}\n`);
  }
  close(): void {
    this.stopSpinner();
    this.bars.stop();
  }
  private stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }
}
