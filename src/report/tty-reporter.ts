import cliProgress from 'cli-progress';
import ora, { type Ora } from 'ora';
import type { EntityName } from '../entities/types.js';
import type { EntityCounts } from '../pipeline/events.js';
import { rate, type Reporter } from './reporter.js';

/**
 * A spinner while a phase starts (opening files, the first request), then one bar for the phase with
 * records, rate and, when the total is known, ETA. Phases run one after another, so one bar at a time:
 * a finished phase's bar stays on screen as its record.
 */
export class TtyReporter implements Reporter {
  private spinner: Ora | undefined;
  private bar: cliProgress.SingleBar | undefined;
  private expected = 0;

  constructor(private readonly out: NodeJS.WriteStream) {}

  phaseStarted(entity: EntityName, expected: number | undefined): void {
    this.expected = expected ?? 0;
    // discardStdin off: ora would put the terminal in raw mode while it spins and pass Ctrl+C on itself,
    // and a Ctrl+C pressed as the spinner stopped was lost (the run went on to the end; seen in the pty test).
    this.spinner = ora({ text: `${entity}: starting`, stream: this.out, discardStdin: false }).start();
  }

  progress(entity: EntityName, c: EntityCounts): void {
    this.stopSpinner();
    const done = c.imported + c.alreadyPresent + c.rejected + c.skipped + c.resumed;
    if (!this.bar) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: this.out,
          hideCursor: true,
          clearOnComplete: false,
          fps: 8,
          barsize: 24,
          format: (options, params, payload: Payload) => formatBarLine(options, params, payload),
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(this.expected, 0, payloadOf(entity, c, '?'));
    }
    const perSec = c.elapsedMs > 0 ? done / (c.elapsedMs / 1000) : 0;
    const total = this.bar.getTotal();
    if (total > 0 && done > total) this.bar.setTotal(done);
    const eta = total > 0 && perSec > 0 ? formatEta(Math.max(0, total - done) / perSec) : '?';
    this.bar.update(done, payloadOf(entity, c, eta));
  }

  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    this.progress(entity, c);
    // The total was an estimate (quoted newlines in CSV count as lines): a finished bar shows what was read.
    if (completed && this.bar && this.bar.getTotal() > 0) {
      this.bar.setTotal(c.read);
      this.bar.update(c.read);
    }
    this.bar?.stop();
    this.bar = undefined;
  }

  warning(message: string): void {
    this.line(`warning: ${message}`);
  }

  info(message: string): void {
    this.line(message);
  }

  close(): void {
    this.stopSpinner();
    this.bar?.stop();
    this.bar = undefined;
  }

  /** A line above the bar: clear the bar's line, write, and let the next update redraw it. */
  private line(text: string): void {
    if (this.spinner) {
      this.spinner.clear();
      this.out.write(`${text}\n`);
      this.spinner.render();
      return;
    }
    this.out.write(`${this.bar ? '\r\x1b[K' : ''}${text}\n`);
  }

  private stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }
}

interface Payload {
  entity: string;
  rate: string;
  imported: number;
  rejected: number;
  eta: string;
}

const payloadOf = (entity: EntityName, c: EntityCounts, eta: string): Payload => ({
  entity,
  rate: rate(c),
  imported: c.imported + c.alreadyPresent,
  rejected: c.rejected,
  eta,
});

const formatEta = (seconds: number): string =>
  seconds >= 3600 ? `${Math.floor(seconds / 3600)}h${Math.round((seconds % 3600) / 60)}m` : seconds >= 60 ? `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s` : `${Math.round(seconds)}s`;

function formatBarLine(options: cliProgress.Options, params: cliProgress.Params, p: Payload): string {
  const known = params.total > 0;
  const size = options.barsize ?? 24;
  const filled = known ? Math.min(size, Math.round(params.progress * size)) : 0;
  const bar = known ? `${options.barCompleteString!.slice(0, filled)}${options.barIncompleteString!.slice(0, size - filled)} ` : '';
  const of = known ? `/${params.total}` : '';
  return `${p.entity.padEnd(9)} ${bar}${params.value}${of} records | ${p.rate} rec/s | ${p.imported} imported, ${p.rejected} rejected${known ? ` | ETA ${p.eta}` : ''}`;
}
