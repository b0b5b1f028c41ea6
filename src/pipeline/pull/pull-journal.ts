/**
 * The pull's state: one NDJSON journal in the output folder (`.chat-migrate-pull.ndjson`), a line per
 * step, appended as each page is written. A SIGKILL tears at most the last line, which is dropped on
 * open: its page is fetched again. When a pull run ends, the journal is rewritten as one `base` line
 * (what later runs need: each channel's newest message and the ids near it, the sources' remembered
 * facts, the runs so far), so it stays small however many nightly runs follow.
 */
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { CheckpointError } from '../../errors.js';

export const JOURNAL_FILE = '.chat-migrate-pull.ndjson';
/** Ids of messages this close to a channel's newest are kept, so a delta's lookback drops them. */
export const KEEP_RECENT_MS = 60 * 60_000;

export interface PullRunInfo {
  id: string;
  kind: 'full' | 'delta';
  startedAt: number;
  endedAt?: number;
  /** The delta's settings (`--since`), as given: a resumed run keeps them. */
  since?: { mode: 'time' | 'auto'; timeMs?: number; lookbackMs: number };
  /** The source pulled, so another source's pull into the same folder is refused. */
  source: string;
}

export interface StreamState {
  file: string;
  cursor?: unknown;
  bytes: number;
  items: number;
  done: boolean;
}

/**
 * A list's mark among the channels' (no channel id starts with `#`): the items near its newest, keyed
 * `<id>@<time>`, so a delta's lookback does not write again a user it wrote unchanged.
 */
export const listMarkOf = (streamId: string): string => `#list ${streamId}`;
export const isListMark = (key: string): boolean => key.startsWith('#list ');

export interface ChannelMark {
  newestMs: number;
  /** Message id -> time, for ids within KEEP_RECENT_MS of `newestMs`. */
  recent: Map<string, number>;
}

type Line =
  | {
      t: 'base';
      runs: PullRunInfo[];
      channels: Record<string, [number, Array<[string, number]>]>;
      facts: Array<[string, unknown]>;
    }
  | { t: 'run'; run: PullRunInfo }
  | {
      t: 'page';
      s: string;
      file: string;
      cursor?: unknown;
      bytes: number;
      items: number;
      ch?: string;
      recent?: Array<[string, number]>;
      facts?: Array<[string, unknown]>;
    }
  | { t: 'done'; s: string }
  | { t: 'end'; at: number };

export class PullJournal {
  readonly runs: PullRunInfo[] = [];
  readonly streams = new Map<string, StreamState>();
  readonly channels = new Map<string, ChannelMark>();
  readonly facts = new Map<string, unknown>();
  private fd?: import('node:fs/promises').FileHandle;
  /** Appends one after another: streams pulled at once journal their pages in turn, never interleaved. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly file: string) {}

  /** The journal of `file`, read whole (a torn last line dropped), ready to append. */
  static async open(file: string): Promise<PullJournal> {
    const journal = new PullJournal(file);
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const whole = text.lastIndexOf('\n') + 1;
    for (const [i, line] of text.slice(0, whole).split('\n').entries()) {
      if (line === '') continue;
      let parsed: Line;
      try {
        parsed = JSON.parse(line) as Line;
      } catch {
        throw new CheckpointError('PULL_STATE_BROKEN', `the pull's state ${file} is broken at line ${i + 1}`, {
          hint: 'move the output folder aside and pull again',
        });
      }
      journal.apply(parsed);
    }
    journal.fd = await open(file, 'a+');
    // A torn last line (killed mid-append) goes: the next line must start on its own.
    if (whole < text.length) await journal.fd.truncate(Buffer.byteLength(text.slice(0, whole)));
    return journal;
  }

  /** The run begun and not ended (resumed whatever the flags say), if any. */
  get openRun(): PullRunInfo | undefined {
    const last = this.runs.at(-1);
    return last && last.endedAt === undefined ? last : undefined;
  }

  /** The last run that ended. */
  get lastEnded(): PullRunInfo | undefined {
    return this.runs.filter((r) => r.endedAt !== undefined).at(-1);
  }

  async beginRun(run: PullRunInfo): Promise<void> {
    await this.append({ t: 'run', run });
  }

  async page(line: Omit<Extract<Line, { t: 'page' }>, 't'>): Promise<void> {
    await this.append({ t: 'page', ...line });
  }

  async streamDone(stream: string): Promise<void> {
    await this.append({ t: 'done', s: stream });
  }

  /** Ends the open run and folds the journal into one base line. */
  async endRun(at: number): Promise<void> {
    this.apply({ t: 'end', at });
    const channels: Record<string, [number, Array<[string, number]>]> = {};
    for (const [id, mark] of this.channels) channels[id] = [mark.newestMs, [...mark.recent]];
    const base: Line = { t: 'base', runs: this.runs, channels, facts: [...this.facts] };
    await this.writing;
    const temp = `${this.file}.tmp`;
    await writeFile(temp, `${JSON.stringify(base)}\n`);
    await this.fd?.close();
    await rename(temp, this.file);
    this.fd = await open(this.file, 'a+');
    this.streams.clear();
  }

  async close(): Promise<void> {
    await this.writing.catch(() => undefined);
    await this.fd?.close();
    this.fd = undefined;
  }

  private async append(line: Line): Promise<void> {
    this.apply(line);
    const text = `${JSON.stringify(line)}\n`;
    this.writing = this.writing.then(() => this.fd!.appendFile(text));
    await this.writing;
  }

  private apply(line: Line): void {
    switch (line.t) {
      case 'base':
        this.runs.push(...line.runs);
        for (const [id, [newestMs, recent]] of Object.entries(line.channels))
          this.channels.set(id, { newestMs, recent: new Map(recent) });
        for (const [k, v] of line.facts) this.facts.set(k, v);
        return;
      case 'run':
        this.runs.push(line.run);
        this.streams.clear();
        return;
      case 'page': {
        const { s, file, cursor, bytes, items } = line;
        this.streams.set(s, { file, cursor, bytes, items, done: false });
        for (const [k, v] of line.facts ?? []) this.facts.set(k, v);
        if (line.ch !== undefined && line.recent !== undefined) this.mark(line.ch, line.recent);
        return;
      }
      case 'done': {
        const stream = this.streams.get(line.s);
        if (stream) stream.done = true;
        else this.streams.set(line.s, { file: '', bytes: 0, items: 0, done: true });
        return;
      }
      case 'end': {
        const run = this.runs.at(-1);
        if (run) run.endedAt = line.at;
        return;
      }
    }
  }

  /** Moves a channel's newest time on and keeps the ids near it. */
  private mark(channel: string, recent: Array<[string, number]>): void {
    const mark = this.channels.get(channel) ?? { newestMs: 0, recent: new Map<string, number>() };
    for (const [id, ms] of recent) {
      mark.recent.set(id, ms);
      if (ms > mark.newestMs) mark.newestMs = ms;
    }
    for (const [id, ms] of mark.recent) if (ms < mark.newestMs - KEEP_RECENT_MS) mark.recent.delete(id);
    this.channels.set(channel, mark);
  }
}
