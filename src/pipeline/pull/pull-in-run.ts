/**
 * `pull`'s body over the run (run.ts): picks the pull run (an interrupted one resumes, whatever the
 * flags; else a full one, or a delta from `--since`), makes the source's client on its own limiter
 * and the run's retry policy, lets the source walk its API through a PullSession, and ends the run in
 * the journal.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, InterruptedError } from '../../errors.js';
import { loadSource } from '../../systems/index.js';
import type { PullSince, SourceName } from '../../systems/shared/pull-types.js';
import type { Run } from '../run/run.js';
import { type PullCounts, PullSession } from './pull-context.js';
import { isListMark, JOURNAL_FILE, PullJournal, type PullRunInfo } from './pull-journal.js';

export interface PullOptions {
  source: SourceName;
  out: string;
  /** `--since <time>` (ms) or `--since auto`; none: everything. */
  since?: { mode: 'time'; timeMs: number } | { mode: 'auto' };
  lookbackMinutes: number;
  baseUrl?: string;
  requestsPerMinute?: number | 'auto';
  concurrency: number;
  guild?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Told the credentials' secret values before any request, so every message can hide them. */
  secrets?(values: readonly string[]): void;
}

export interface PullSummary {
  source: SourceName;
  out: string;
  /** The pull run's folder under `out`: `full-20261127T140512Z`. */
  folder: string;
  kind: 'full' | 'delta';
  /** This run went on with a pull run an earlier one began. */
  resumed: boolean;
  /** A delta's cutoff for lists (ISO), as `--since` or `auto` made it. */
  since?: string;
  counts: PullCounts;
  /** Files written into place by this run. */
  files: number;
  requests: number;
  retries: number;
  rateLimited: number;
  elapsedMs: number;
  /** The newest message time pulled so far from any channel, this run or before (ms): sync's lag. */
  newestMessageMs?: number;
}

/** The lock file that keeps two pulls out of one output folder: the run holds it (RunSpec `locks`). */
export const pullLockOf = (out: string): string => path.join(out, '.chat-migrate-pull.lock');

/** Pulls as `options` say, inside a run that holds `pullLockOf(options.out)`. */
export async function pullInRun(run: Run, options: PullOptions): Promise<PullSummary> {
  const source = await loadSource(options.source);
  const credentials = source.credentials(options.env);
  options.secrets?.(credentials.secrets);
  await mkdir(options.out, { recursive: true });
  const journal = await PullJournal.open(path.join(options.out, JOURNAL_FILE));
  const startedAt = Date.now();
  try {
    const other = journal.runs.find((r) => r.source !== options.source);
    if (other) {
      throw new ConfigError(
        'PULL_OTHER_SOURCE',
        `${options.out} holds a pull of ${other.source}, not ${options.source}`,
        { hint: 'pull each source into a folder of its own' },
      );
    }
    const { info, resumed } = await pickRun(run, journal, options, startedAt);
    const traffic = run.requests('pull');
    const session: { current?: PullSession } = {};
    const http = await run.clients.sourceClient({
      source: options.source,
      baseUrl: options.baseUrl ?? credentials.defaultBaseUrl,
      headers: credentials.headers,
      authHint: source.authHint,
      connections: options.concurrency,
      requestsPerMinute: options.requestsPerMinute ?? source.defaultRequestsPerMinute,
      events: {
        requestStarted: (isRetry) => traffic.requestStarted(isRetry),
        answered: (status, ms) => traffic.answered(status, ms),
        retrying: (notice) => run.events.retrying(session.current?.current ?? 'messages', notice),
      },
    });
    const ctx = new PullSession({
      http,
      since: sinceOf(journal, info),
      stop: run.stop,
      concurrency: options.concurrency,
      facts: credentials.facts ?? {},
      options: { guild: options.guild },
      journal,
      runDir: path.join(options.out, info.id),
      events: run.events,
      clock: run.clock,
    });
    session.current = ctx;
    run.sample(ctx.counts, () => undefined);
    try {
      await source.pull(ctx);
      // A source that returned early on a stop has not walked everything: the run must not end.
      if (run.stop.aborted) throw new InterruptedError();
      ctx.finishPhases(true);
    } catch (err) {
      ctx.finishPhases(false);
      throw err;
    } finally {
      await run.clients.release(http);
    }
    await journal.endRun(Date.now());
    const { requests, retries, rateLimited } = traffic.traffic;
    const cutoff = info.since?.mode === 'time' ? info.since.timeMs : lastEndedStart(journal, info);
    return {
      source: options.source,
      out: options.out,
      folder: info.id,
      kind: info.kind,
      resumed,
      since: info.kind === 'delta' && cutoff !== undefined ? new Date(cutoff).toISOString() : undefined,
      counts: ctx.counts,
      files: ctx.files.length,
      requests,
      retries,
      rateLimited,
      elapsedMs: Date.now() - startedAt,
      newestMessageMs: newestOf(journal),
    };
  } finally {
    await journal.close();
  }
}

/** The interrupted pull run, resumed; else a new one as the flags say. */
async function pickRun(
  run: Run,
  journal: PullJournal,
  options: PullOptions,
  now: number,
): Promise<{ info: PullRunInfo; resumed: boolean }> {
  const open = journal.openRun;
  if (open) {
    run.events.info(`resuming the pull begun ${new Date(open.startedAt).toISOString()} (${open.id})`);
    return { info: open, resumed: true };
  }
  const lookbackMs = options.lookbackMinutes * 60_000;
  let kind: 'full' | 'delta' = options.since ? 'delta' : 'full';
  if (options.since?.mode === 'auto' && !journal.lastEnded) {
    run.events.info(`no earlier pull in ${options.out}: pulling everything`);
    kind = 'full';
  }
  if (kind === 'full' && journal.lastEnded) {
    run.events.warning(
      `${options.out} already holds a whole pull (${journal.lastEnded.id}): this one writes everything again; ` +
        'use --since auto for what is new',
    );
  }
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const info: PullRunInfo = {
    id: `${kind}-${stamp}`,
    kind,
    startedAt: now,
    source: options.source,
    since:
      kind === 'full' || !options.since
        ? undefined
        : options.since.mode === 'time'
          ? { mode: 'time', timeMs: options.since.timeMs, lookbackMs }
          : { mode: 'auto', lookbackMs },
  };
  await journal.beginRun(info);
  return { info, resumed: false };
}

/** What a delta pulls: since a time, or since what the last pull saw (less the lookback). */
function sinceOf(journal: PullJournal, info: PullRunInfo): PullSince {
  const since = info.since;
  if (info.kind === 'full' || !since) return { kind: 'full' };
  if (since.mode === 'time') {
    const at = since.timeMs ?? 0;
    return { kind: 'delta', mode: 'time', cutoffMs: () => at, listCutoffMs: at };
  }
  const marks = new Map([...journal.channels].map(([id, mark]) => [id, mark.newestMs]));
  const listCutoffMs = (lastEndedStart(journal, info) ?? 0) - since.lookbackMs;
  return {
    kind: 'delta',
    mode: 'auto',
    // A channel no earlier pull wrote a message of is read whole: new to the token, or quiet till now.
    cutoffMs: (channel) => {
      const newest = channel === undefined ? undefined : marks.get(channel);
      return newest === undefined ? 0 : newest - since.lookbackMs;
    },
    listCutoffMs,
  };
}

/** When the last pull run before `info` began: what `auto` counts from. */
function lastEndedStart(journal: PullJournal, info: PullRunInfo): number | undefined {
  return journal.runs.filter((r) => r.endedAt !== undefined && r.id !== info.id).at(-1)?.startedAt;
}

/** The newest message any pull of this folder wrote, from the channels' marks. */
function newestOf(journal: PullJournal): number | undefined {
  let newest: number | undefined;
  for (const [key, mark] of journal.channels)
    if (!isListMark(key) && (newest === undefined || mark.newestMs > newest)) newest = mark.newestMs;
  return newest;
}
