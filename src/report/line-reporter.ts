import { systemClock } from '../clock.js';
import type { EntityName } from '../entities/types.js';
import type { EntityCounts, RetryNotice } from '../pipeline/events.js';
import {
  describeOutcome,
  describeRetry,
  figuresOf,
  formatEta,
  formatRate,
  OUTCOME_TERMS,
  type OutcomeTerms,
} from './figures.js';
import type { Reporter } from './reporter.js';
import { formatDuration } from './summary.js';
import { plural } from './words.js';

/**
 * Progress lines every few seconds, for CI logs and pipes: each with the time, done/total and percent
 * when the total is known, rate, ETA and the outcome in the summary's words.
 */
export class LineReporter implements Reporter {
  private lastAt = 0;
  private lastRetryAt = 0;
  private lastAttempt = 0;
  /** Retries not given a line of their own (429s can come by the hundred). */
  private retriesUnshown = 0;
  private expected: number | undefined;
  static readonly EVERY_MS = 5000;
  static readonly RETRY_EVERY_MS = 1000;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly now: () => number = systemClock.now,
    private readonly terms: OutcomeTerms = OUTCOME_TERMS,
  ) {}

  phaseStarted(entity: EntityName, expected: number | undefined): void {
    this.expected = expected;
    this.write(entity, expected === undefined ? 'started' : `started: ${plural(expected, 'record')} to read`);
    this.lastAt = this.now();
  }
  progress(entity: EntityName, c: EntityCounts): void {
    if (this.now() - this.lastAt < LineReporter.EVERY_MS) return;
    this.lastAt = this.now();
    this.write(entity, this.describe(c, false, false));
  }
  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    const how = completed ? 'finished' : 'stopped';
    this.write(entity, `${how} after ${formatDuration(c.elapsedMs)}: ${this.describe(c, true, completed)}`);
  }
  retrying(entity: EntityName, notice: RetryNotice): void {
    // A retry further along than the last one shown always gets its line: a request that keeps failing
    // shows each step. Others wait a second: under 429s every batch in flight retries at once.
    if (this.now() - this.lastRetryAt < LineReporter.RETRY_EVERY_MS && notice.attempt <= this.lastAttempt) {
      this.retriesUnshown++;
      return;
    }
    const others = plural(this.retriesUnshown, 'other retry', 'other retries');
    const more = this.retriesUnshown > 0 ? ` (and ${others} since the last line)` : '';
    this.lastRetryAt = this.now();
    this.lastAttempt = notice.attempt;
    this.retriesUnshown = 0;
    this.write(entity, `${describeRetry(notice)}${more}`);
  }
  warning(message: string): void {
    this.out.write(`warning: ${message}\n`);
  }
  info(message: string): void {
    this.out.write(`${message}\n`);
  }
  close(): void {}

  private write(entity: EntityName, text: string): void {
    const time = new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    this.out.write(`${time} [${entity}] ${text}\n`);
  }

  /** `final`: the phase's last line, which needs no ETA; `completed`: read to the end. */
  private describe(c: EntityCounts, final: boolean, completed: boolean): string {
    // A finished phase's total is what was read: the count ahead may be off for a CSV file csv-parse refuses rows of.
    const f = figuresOf(c, completed ? c.read : this.expected);
    const where = f.total === undefined ? plural(f.done, 'record') : `${f.done}/${f.total} (${f.percent}%)`;
    const eta = f.total === undefined || final ? '' : `, ETA ${formatEta(f.etaSec)}`;
    return `${where}, ${formatRate(f.perSec)}${eta}: ${describeOutcome(c, this.terms)}`;
  }
}
