import cliProgress from 'cli-progress';
import ora, { type Ora } from 'ora';
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
import { fitLine, wrapText } from './words.js';

const NAME_WIDTH = 9;
const BAR_MIN = 8;
const BAR_MAX = 30;

/**
 * A spinner while a phase starts (opening files, the first request), then two lines for the phase:
 * bar, done/total, rate and ETA; under it the outcome in the summary's words, or a retry under way.
 * Every line is cut to the terminal's width, so nothing wraps (a wrapped live line is redrawn a line
 * too low). Phases run one after another: a finished phase's lines stay on screen as its record.
 */
export class TtyReporter implements Reporter {
  private spinner: Ora | undefined;
  private bars: cliProgress.MultiBar | undefined;
  private entity = '';
  private expected: number | undefined;
  private counts: EntityCounts | undefined;
  private completed = false;
  private retry: { notice: RetryNotice; at: number } | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly colour = true,
    private readonly terms: OutcomeTerms = OUTCOME_TERMS,
  ) {}

  phaseStarted(entity: EntityName, expected: number | undefined): void {
    this.entity = entity;
    this.expected = expected;
    this.counts = undefined;
    this.completed = false;
    this.retry = undefined;
    const text = `${entity}: starting`;
    // discardStdin off: ora would put the terminal in raw mode while it spins and pass Ctrl+C on itself,
    // and a Ctrl+C pressed as the spinner stopped was lost (the run went on to the end; seen in the pty test).
    this.spinner = ora({
      text,
      // A function, so the retry's wait counts down at each frame; cut to fit after the spinner and text.
      suffixText: () => (this.retry ? fitLine(`- ${this.retryText()}`, this.width() - text.length - 3) : ''),
      color: this.colour ? 'cyan' : false,
      stream: this.out,
      discardStdin: false,
    }).start();
  }

  progress(_entity: EntityName, c: EntityCounts): void {
    this.counts = { ...c };
    // A batch answered: a retry whose wait is over is no longer news.
    if (this.retry && Date.now() >= this.retry.at + this.retry.notice.delayMs) this.retry = undefined;
    if (this.bars) return;
    this.stopSpinner();
    this.bars = new cliProgress.MultiBar({
      stream: this.out,
      hideCursor: true,
      clearOnComplete: false,
      fps: 8,
      // Keep the terminal's own wrapping: lines written above the bars (a long path) then wrap, not vanish.
      linewrap: null,
    });
    this.bars.create(1, 0, {}, { format: () => this.figuresLine() });
    this.bars.create(1, 0, {}, { format: () => this.outcomeLine() });
  }

  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    this.progress(entity, c);
    this.completed = completed;
    this.retry = undefined;
    this.stopBars();
  }

  retrying(_entity: EntityName, notice: RetryNotice): void {
    this.retry = { notice, at: Date.now() };
  }

  warning(message: string): void {
    this.line(`warning: ${message}`);
  }

  info(message: string): void {
    this.line(message);
  }

  close(): void {
    this.stopSpinner();
    this.stopBars();
  }

  private width(): number {
    return Math.max(20, (this.out.columns || 80) - 1);
  }

  /** `messages  ████░░░░ 2250/6000 37% | 136.9 rec/s | ETA 37s`; the bar takes the room that is left. */
  private figuresLine(): string {
    const c = this.counts!;
    // A finished phase's total is what was read: the estimate counted lines, not records.
    const f = figuresOf(c, this.completed ? c.read : this.expected);
    const name = this.entity.padEnd(NAME_WIDTH);
    if (f.total === undefined) return fitLine(`${name}${f.done} records | ${formatRate(f.perSec)}`, this.width());
    const when = this.completed ? `in ${formatDuration(c.elapsedMs)}` : `ETA ${formatEta(f.etaSec)}`;
    const rest = `${f.done}/${f.total} ${f.percent}% | ${formatRate(f.perSec)} | ${when}`;
    const size = Math.min(BAR_MAX, this.width() - name.length - rest.length - 1);
    if (size < BAR_MIN) return fitLine(`${name}${rest}`, this.width());
    const filled = Math.round((f.done / f.total) * size);
    return `${name}${'█'.repeat(filled)}${'░'.repeat(size - filled)} ${rest}`;
  }

  /** Under the bar: the outcome so far, or the retry a request waits for. */
  private outcomeLine(): string {
    const text = this.retry ? this.retryText() : describeOutcome(this.counts!, this.terms);
    return fitLine(`${' '.repeat(NAME_WIDTH)}${text}`, this.width());
  }

  private retryText(): string {
    const { notice, at } = this.retry!;
    const left = at + notice.delayMs - Date.now();
    if (left > 0) return describeRetry(notice, left);
    return `retry ${notice.attempt}/${notice.of} under way, after ${notice.reason}`;
  }

  /** Lines above the live ones, wrapped to the width: the bars then redraw below them. */
  private line(text: string): void {
    // Broken inside long words too: while the bars are up the terminal cuts a line at its edge (no wrapping).
    const lines = wrapText(text, this.width(), '  ', true);
    if (this.bars) {
      // Each line clears the rest of its row: it is written over the rows the bars stood on.
      this.bars.log(lines.map((l) => `${l}\x1b[K\n`).join(''));
      this.bars.update();
      return;
    }
    if (this.spinner) this.spinner.clear();
    this.out.write(lines.map((l) => `${l}\n`).join(''));
    this.spinner?.render();
  }

  private stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private stopBars(): void {
    if (!this.bars) return;
    this.bars.update();
    this.bars.stop();
    this.bars = undefined;
  }
}
