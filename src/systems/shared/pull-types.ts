/**
 * What a live source (Sendbird, Stream, Twilio, Slack, Discord) gives the pull, and what the pull gives
 * it. A source knows its API's paths, paging and shapes, and the export layout its preset reads; the
 * pull (src/pipeline/pull/) owns everything else: the state journal, the output files, resume, deltas,
 * progress and the run.
 */
import type { SourceHttp } from '../../http/source-client.js';
import type { SourceName } from '../registry.js';

export type { SourceName };

/** The entities a pull reports progress for, in the preset's words: channels are groups. */
export type PullEntity = 'users' | 'groups' | 'members' | 'messages';

/** How an output file is laid out: a JSON document whose items sit between `head` and `tail`, or NDJSON. */
export type FileLayout = { json: { head: string; tail: string } } | 'ndjson';

/** One output file, written page by page; a stream is done once, even across runs. */
export interface StreamSpec {
  /** Unique within the pull run, stable across resumes: `users`, `messages:<channel>`. */
  id: string;
  /** Path inside the pull run's folder, `/`-separated: `messages/general.json`. */
  file: string;
  layout: FileLayout;
  entity: PullEntity;
  /** An index the preset reads for the others' sake (Twilio's services): written, not counted as records. */
  notRecords?: true;
  /** The channel whose messages these are: `--since auto` keeps the newest time per channel. */
  channel?: string;
  /**
   * For deltas: each item's id and time (ms). Items older than the delta's cutoff, or pulled by an
   * earlier run (ids kept for the lookback window), are not written again.
   */
  itemKey?: (item: unknown) => string;
  itemTimeMs?: (item: unknown) => number | undefined;
}

/** One page of a stream: its items, the cursor of the next page (none: the last), facts to keep. */
export interface Page<C> {
  items: readonly unknown[];
  next?: C;
  /** Kept in the state with this page, atomically: what a later step needs on resume (channels...). */
  remember?: ReadonlyArray<readonly [string, unknown]>;
  /** Records of other entities written inside this page's items (a channel's members): for the counts. */
  nested?: Partial<Record<PullEntity, number>>;
}

/** What a stream did in this run. */
export interface StreamResult {
  /** Items written this run (after the delta's filter) and over all runs of this pull run. */
  written: number;
  /** Already done by an earlier, interrupted run of the same pull: nothing fetched. */
  resumedDone: boolean;
}

/** Which records a pull writes: all, or those since a time (a delta). */
export type PullSince =
  | { kind: 'full' }
  | {
      kind: 'delta';
      /** `--since <time>`, or `auto`: the newest pulled per channel less the lookback. */
      mode: 'time' | 'auto';
      /** The cutoff for a channel (ms): messages at or after it are pulled. */
      cutoffMs(channel?: string): number;
      /** The cutoff for users, channels and members (ms): those created or changed at or after it. */
      listCutoffMs: number;
    };

export interface PullContext {
  readonly http: SourceHttp;
  readonly since: PullSince;
  /** First Ctrl+C: take no new page. */
  readonly stop: AbortSignal;
  /** How many channels to pull at once. */
  readonly concurrency: number;
  /** The credentials' non-secret facts (`Credentials.facts`: an app id, an account SID). */
  readonly facts: Readonly<Record<string, string>>;
  /** What the person chose for this source on the command line: `guild` (`pull discord --guild <id>`). */
  readonly options: Readonly<{ guild?: string }>;
  /**
   * Writes one stream page by page from `fetch`, resuming from its saved cursor; returns once the last
   * page is written (or at once when an earlier run finished it). `fetch(undefined)` asks the first page.
   */
  pages<C>(stream: StreamSpec, fetch: (cursor: C | undefined) => Promise<Page<C>>): Promise<StreamResult>;
  /** Facts kept with pages (`remember`), this pull run's and earlier ones', whose key starts with `prefix`. */
  remembered(prefix: string): Array<[string, unknown]>;
  /** The one fact kept under exactly `key`, or undefined: a lookup, for a page's own fact. */
  recalled(key: string): unknown;
  /**
   * Pulls each channel with `pull`, `concurrency` at a time, counting them for the messages' ETA. After
   * a stop nothing new starts, and the first failure ends the walk (nothing queued starts after it).
   */
  eachChannel<T>(channels: readonly T[], pull: (channel: T) => Promise<void>): Promise<void>;
  /** Said to the person running it (`the bot cannot see 3 private channels`). */
  warning(message: string): void;
  info(message: string): void;
}

/** A source's credentials, as read from the environment; never written anywhere. */
export interface Credentials {
  /** Headers every request to the source carries (Api-Token, Authorization...). */
  headers: Record<string, string>;
  /** The base URL when neither --base-url nor the config says another (`https://api-<app>.sendbird.com`). */
  defaultBaseUrl: string;
  /** Values that are secret (tokens, secrets): redacted wherever a message might carry them. */
  secrets: readonly string[];
  /** Extra facts a source keeps (the app id, the account SID): not secret. */
  facts?: Record<string, string>;
}

export interface LiveSource {
  readonly name: SourceName;
  /** The environment variables it reads, in the words an error names them: `SENDBIRD_API_TOKEN`. */
  readonly envNames: readonly string[];
  /** The source's documented request rate (per minute) the pull keeps under by default. */
  readonly defaultRequestsPerMinute: number;
  /** Reads the credentials; throws a SourceError (SOURCE_CREDENTIALS_MISSING) naming the variables missing. */
  credentials(env: Readonly<Record<string, string | undefined>>): Credentials;
  /** What to check when the source refuses the credentials (401/403): names the variables. */
  readonly authHint: string;
  /** The whole pull: every file through `ctx.pages`, so it resumes and filters deltas. */
  pull(ctx: PullContext): Promise<void>;
}
