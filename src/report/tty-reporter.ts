import cliProgress, { type GenericFormatter, type Options, type Params, type SingleBar } from 'cli-progress';
import { type Clock, systemClock } from '../clock.js';
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
 * The rows' templates, filled by cli-progress: `{bar}`, `{value}`, `{total}` and `{percentage}` are
 * its own (the bar's value is the records done, its total the phase's); `{name}`, `{rate}`, `{when}`
 * and `{outcome}` come with each update, in the words of figures.ts.
 */
const BAR_ROW = '{name}{bar} {value}/{total} {percentage}% | {rate} | {when}';
/** The bar row without its bar: too narrow a terminal for 8 cells of bar, and the measure of the room left. */
const FIGURES_ROW = '{name}{value}/{total} {percentage}% | {rate} | {when}';
/** No total to measure against (nothing was estimated): the count and the rate. */
const COUNT_ROW = '{name}{value} records | {rate}';
const OUTCOME_ROW = '{name}{outcome}';

interface FiguresPayload {
  /** Before the phase's first counts: `users: starting`, and a retry's wait after it. */
  starting?: string;
  /** The spinner's frame beside `starting`, coloured or not. */
  frame?: string;
  name: string;
  rate: string;
  /** `ETA 37s` while the phase runs, `in 4.2s` once it is over; none without a total. */
  when?: string;
}

/** Every row is cut to one column less than the terminal, so nothing wraps (see `TtyReporter`). */
const widthOf = (params: Params): number => Math.max(20, params.maxWidth - 1);

const fill = (template: string, options: Options, params: Params, payload: object, barsize?: number): string =>
  cliProgress.Format.Formatter({ ...options, format: template, ...(barsize ? { barsize } : {}) }, params, payload);

/** `messages  ████░░░░ 2250/6000 37% | 136.9 rec/s | ETA 37s`: the bar takes the room left, up to 30 cells. */
const figuresRow: GenericFormatter = (options, params, payload: FiguresPayload) => {
  const width = widthOf(params);
  if (payload.starting !== undefined) return `${payload.frame} ${fitLine(payload.starting, width - 2)}`;
  if (payload.when === undefined) return fitLine(fill(COUNT_ROW, options, params, payload), width);
  const figures = fill(FIGURES_ROW, options, params, payload);
  const barsize = Math.min(BAR_MAX, width - figures.length - 1);
  if (barsize < BAR_MIN) return fitLine(figures, width);
  return fill(BAR_ROW, options, params, payload, barsize);
};

const outcomeRow: GenericFormatter = (options, params, payload) =>
  fitLine(fill(OUTCOME_ROW, options, params, payload), widthOf(params));

/** The spinner's frames (ora's "dots"), one a frame of the bars. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A spinner row while a phase starts (opening files, the first request), then two rows for the phase,
 * all drawn by cli-progress's MultiBar from the templates above: bar, done/total, rate and ETA; under
 * it the outcome in the summary's words (or verify's, by `terms`), or a retry under way.
 * Every line is cut to the terminal's width, so nothing wraps (a wrapped live line is redrawn a line
 * too low). Phases run one after another: a finished phase's lines stay on screen as its record.
 */
export class TtyReporter implements Reporter {
  /** Up from a phase's start to its end: the spinner row, which becomes the figures row. */
  private live: { multi: cliProgress.MultiBar; figures: SingleBar } | undefined;
  /** The phase's two rows, once its first counts came. */
  private bars: { multi: cliProgress.MultiBar; figures: SingleBar; outcome: SingleBar } | undefined;
  private frame = 0;
  private entity = '';
  private expected: number | undefined;
  private counts: EntityCounts | undefined;
  private completed = false;
  private retry: { notice: RetryNotice; at: number } | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly colour = true,
    private readonly terms: OutcomeTerms = OUTCOME_TERMS,
    /** A retry's countdown is on the run's clock. */
    private readonly clock: Clock = systemClock,
  ) {}

  phaseStarted(entity: EntityName, expected: number | undefined): void {
    this.entity = entity;
    this.expected = expected;
    this.counts = undefined;
    this.completed = false;
    this.retry = undefined;
    this.stopBars();
    this.live = this.startLive();
    this.live.multi.update(); // the spinner at once, not a frame later
  }

  progress(_entity: EntityName, c: EntityCounts): void {
    this.counts = { ...c };
    // A batch answered: a retry whose wait is over is no longer news.
    if (this.retry && this.clock.now() >= this.retry.at + this.retry.notice.delayMs) this.retry = undefined;
    if (this.bars) return;
    // The spinner row becomes the figures row; the outcome goes under it.
    const live = this.live ?? this.startLive();
    this.live = live;
    this.bars = { ...live, outcome: live.multi.create(1, 0, {}, { format: outcomeRow }) };
  }

  private startLive(): { multi: cliProgress.MultiBar; figures: SingleBar } {
    const multi = new cliProgress.MultiBar({
      stream: this.out,
      hideCursor: true,
      clearOnComplete: false,
      fps: 8,
      // The terminal's wrapping is off while the bars are up (and on again when they stop): a row too
      // long is cut at the edge, never wrapped onto the next. line() wraps what it writes above them.
      linewrap: false,
      barsize: BAR_MAX,
      barCompleteChar: '█',
      barIncompleteChar: '░',
    });
    const figures = multi.create(1, 0, {}, { format: figuresRow });
    // Before each frame: the figures are the counts' (the retry's wait counts down between counts).
    multi.on('update-pre', () => this.refresh());
    return { multi, figures };
  }

  phaseFinished(entity: EntityName, c: EntityCounts, completed: boolean): void {
    this.progress(entity, c);
    this.completed = completed;
    this.retry = undefined;
    this.stopBars();
  }

  retrying(_entity: EntityName, notice: RetryNotice): void {
    this.retry = { notice, at: this.clock.now() };
  }

  warning(message: string): void {
    this.line(`warning: ${message}`);
  }

  info(message: string): void {
    this.line(message);
  }

  close(): void {
    this.stopBars();
  }

  private width(): number {
    return Math.max(20, (this.out.columns || 80) - 1);
  }

  /** The bars' values and words for the next frame: done of the total, rate, ETA, the outcome or a retry. */
  private refresh(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    if (this.bars === undefined) {
      const frame = this.colour ? `\x1b[36m${FRAMES[this.frame]}\x1b[39m` : FRAMES[this.frame];
      const retry = this.retry ? ` - ${this.retryText()}` : '';
      this.live?.figures.update(0, { starting: `${this.entity}: starting${retry}`, frame });
      return;
    }
    const { figures, outcome } = this.bars;
    const c = this.counts!;
    // A finished phase's total is what was read: the count ahead may be off for a CSV file csv-parse refuses rows of.
    const f = figuresOf(c, this.completed ? c.read : this.expected);
    let when: string | undefined;
    if (f.total !== undefined) {
      figures.setTotal(f.total);
      when = this.completed ? `in ${formatDuration(c.elapsedMs)}` : `ETA ${formatEta(f.etaSec)}`;
    }
    const payload: FiguresPayload = {
      starting: undefined,
      name: this.entity.padEnd(NAME_WIDTH),
      rate: formatRate(f.perSec),
      when,
    };
    figures.update(f.done, payload);
    const text = this.retry ? this.retryText() : describeOutcome(c, this.terms);
    outcome.update({ name: ' '.repeat(NAME_WIDTH), outcome: text });
  }

  private retryText(): string {
    const { notice, at } = this.retry!;
    const left = at + notice.delayMs - this.clock.now();
    if (left > 0) return describeRetry(notice, left);
    return `retry ${notice.attempt}/${notice.of} under way, after ${notice.reason}`;
  }

  /** Lines above the live ones, wrapped to the width: the bars then redraw below them. */
  private line(text: string): void {
    // Broken inside long words too: while the bars are up the terminal cuts a line at its edge (no wrapping).
    const lines = wrapText(text, this.width(), '  ', true);
    if (this.live) {
      // Each line clears the rest of its row: it is written over the rows the bars stood on.
      this.live.multi.log(lines.map((l) => `${l}\x1b[K\n`).join(''));
      this.live.multi.update();
      return;
    }
    this.out.write(lines.map((l) => `${l}\n`).join(''));
  }

  private stopBars(): void {
    if (!this.live) return;
    this.live.multi.update();
    this.live.multi.stop();
    this.live = undefined;
    this.bars = undefined;
  }
}
