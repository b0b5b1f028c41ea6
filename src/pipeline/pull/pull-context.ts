/**
 * What a source pulls through (the PullContext of src/systems/shared/pull-types.ts): each stream resumes from its
 * journalled cursor, a delta's items are filtered before they are written, and every page is journalled
 * after its items are on disk, so a kill loses at most the page in flight.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { type Clock, systemClock } from '../../clock.js';
import { InterruptedError } from '../../errors.js';
import type { SourceHttp } from '../../http/source-client.js';
import type {
  Page,
  PullContext,
  PullEntity,
  PullSince,
  StreamResult,
  StreamSpec,
} from '../../systems/shared/pull-types.js';
import { emptyCounts, type EntityCounts, type RunEvents } from '../events.js';
import { OutputFile } from './output-file.js';
import { KEEP_RECENT_MS, listMarkOf, type PullJournal } from './pull-journal.js';

export interface PullContextOptions {
  http: SourceHttp;
  since: PullSince;
  stop: AbortSignal;
  concurrency: number;
  facts: Record<string, string>;
  options: { guild?: string };
  journal: PullJournal;
  /** The pull run's folder: every stream's file is under it. */
  runDir: string;
  events: RunEvents;
  /** The counts' elapsed time and the channels' ETA are on the run's clock; default the system's. */
  clock?: Clock;
}

/** The pull's counts per entity: `imported` written, `skipped` pulled before, `resumed` done earlier. */
export type PullCounts = Record<PullEntity, EntityCounts>;

export class PullSession implements PullContext {
  readonly http: SourceHttp;
  readonly since: PullSince;
  readonly stop: AbortSignal;
  readonly concurrency: number;
  readonly facts: Readonly<Record<string, string>>;
  readonly options: Readonly<{ guild?: string }>;
  readonly counts: PullCounts = {
    users: emptyCounts(),
    groups: emptyCounts(),
    members: emptyCounts(),
    messages: emptyCounts(),
  };
  /** Files this run renamed into place, relative to the output folder's run folder. */
  readonly files: string[] = [];
  private readonly started = new Set<PullEntity>();
  private readonly clock: Clock;
  private readonly startedAt: number;
  private channelsExpected = 0;
  private channelsDone = 0;
  private lastEtaAt: number;

  constructor(private readonly o: PullContextOptions) {
    ({ http: this.http, since: this.since, stop: this.stop, concurrency: this.concurrency } = o);
    this.facts = o.facts;
    this.options = o.options;
    this.clock = o.clock ?? systemClock;
    this.startedAt = this.clock.now();
    this.lastEtaAt = this.startedAt;
  }

  /** The entity the latest stream is of: retries are shown under it. */
  current: PullEntity = 'users';

  async pages<C>(spec: StreamSpec, fetch: (cursor: C | undefined) => Promise<Page<C>>): Promise<StreamResult> {
    const { journal, events } = this.o;
    // Counted as the import will count the files: an index that is no record counts nowhere.
    const counts = spec.notRecords ? emptyCounts() : this.counts[spec.entity];
    this.begin(spec.entity);
    const prior = journal.streams.get(spec.id);
    if (prior?.done) {
      counts.resumed += prior.items;
      return { written: prior.items, resumedDone: true };
    }
    const finalPath = path.join(this.o.runDir, ...spec.file.split('/'));
    // Killed after the rename and before its line: the file is whole.
    if (prior && prior.bytes > 0 && !(await exists(`${finalPath}.partial`)) && (await exists(finalPath))) {
      await journal.streamDone(spec.id);
      return this.ended(spec, prior.items, true);
    }
    const file = await OutputFile.resume(finalPath, spec.layout, prior?.bytes ?? 0, prior?.items ?? 0);
    counts.resumed += prior?.items ?? 0;
    try {
      // A journalled page without a next cursor was the last: only the rename is left.
      let more = prior === undefined || prior.cursor !== undefined;
      let cursor = prior?.cursor as C | undefined;
      while (more) {
        if (this.stop.aborted) throw new InterruptedError();
        const page = await fetch(cursor);
        const kept = this.keep(spec, page.items);
        counts.read += page.items.length;
        counts.imported += kept.length;
        counts.skipped += page.items.length - kept.length;
        if (page.items.length > kept.length) counts.skippedBy['already-pulled'] = counts.skipped;
        const bytes = await file.append(kept);
        await journal.page({
          s: spec.id,
          file: spec.file,
          cursor: page.next,
          bytes,
          items: file.items,
          ...this.recentOf(spec, kept),
          facts: page.remember?.map(([k, v]): [string, unknown] => [k, v]),
        });
        counts.elapsedMs = this.clock.now() - this.startedAt;
        for (const [entity, n] of Object.entries(page.nested ?? {}) as Array<[PullEntity, number]>) {
          this.counts[entity].read += n;
          this.counts[entity].imported += n;
        }
        events.progress(spec.entity, counts);
        more = page.next !== undefined;
        cursor = page.next;
      }
      const written = await file.finish(this.since.kind === 'full' && spec.channel === undefined);
      if (written) this.files.push(spec.file);
      await journal.streamDone(spec.id);
      return this.ended(spec, file.items, false);
    } finally {
      await file.close();
    }
  }

  recalled(key: string): unknown {
    return this.o.journal.facts.get(key);
  }

  remembered(prefix: string): Array<[string, unknown]> {
    return [...this.o.journal.facts].filter(([key]) => key.startsWith(prefix));
  }

  async eachChannel<T>(channels: readonly T[], pull: (channel: T) => Promise<void>): Promise<void> {
    this.channelsExpected = channels.length;
    const limit = pLimit(Math.max(1, this.concurrency));
    await Promise.all(
      channels.map((channel) =>
        limit(async () => {
          if (!this.stop.aborted) await pull(channel);
        }).catch((err: unknown) => {
          limit.clearQueue();
          throw err;
        }),
      ),
    );
    if (this.stop.aborted) throw new InterruptedError();
  }

  warning(message: string): void {
    this.o.events.warning(message);
  }

  info(message: string): void {
    this.o.events.info(message);
  }

  /** Ends the run's phases, each as completed or not. */
  finishPhases(completed: boolean): void {
    for (const entity of this.started) this.o.events.phaseFinished(entity, this.counts[entity], completed);
    this.started.clear();
  }

  private begin(entity: PullEntity): void {
    this.current = entity;
    if (this.started.has(entity)) return;
    this.started.add(entity);
    this.o.events.phaseStarted(entity, undefined);
  }

  private ended(spec: StreamSpec, items: number, resumed: boolean): StreamResult {
    if (spec.channel !== undefined) {
      this.channelsDone++;
      this.sayEta();
    }
    return { written: items, resumedDone: resumed };
  }

  /** Every 10 s while channels are pulled: how many are done, and when the rest should be. */
  private sayEta(): void {
    const now = this.clock.now();
    const { channelsDone: done, channelsExpected: expected } = this;
    if (expected === 0 || (now - this.lastEtaAt < 10_000 && done < expected)) return;
    this.lastEtaAt = now;
    const left = expected - done;
    const eta =
      done > 0 && left > 0 ? `, about ${Math.ceil((((now - this.startedAt) / done) * left) / 1000)} s left` : '';
    this.o.events.info(`messages: ${done} of ${expected} channels pulled${eta}`);
  }

  /** The items a delta still wants: not older than its cutoff, not written by an earlier pull. */
  private keep(spec: StreamSpec, items: readonly unknown[]): unknown[] {
    const { since } = this;
    const cutoff = since.kind === 'full' ? undefined : spec.channel ? since.cutoffMs(spec.channel) : since.listCutoffMs;
    const list = spec.channel === undefined;
    const recent = this.o.journal.channels.get(spec.channel ?? listMarkOf(spec.id))?.recent;
    return items.filter((item) => {
      const ms = spec.itemTimeMs?.(item);
      if (cutoff !== undefined && ms !== undefined && ms < cutoff) return false;
      if (!recent || !spec.itemKey) return true;
      // A list item comes again when it changed (a new time); a message once.
      return !recent.has(list ? `${spec.itemKey(item)}@${ms}` : spec.itemKey(item));
    });
  }

  /** The page's ids near its newest message, for the channel's mark. */
  private recentOf(spec: StreamSpec, kept: readonly unknown[]): { ch?: string; recent?: Array<[string, number]> } {
    const { channel, itemKey, itemTimeMs } = spec;
    if (!itemKey || !itemTimeMs || kept.length === 0) return {};
    const timed = kept.flatMap((item): Array<[string, number]> => {
      const ms = itemTimeMs(item);
      if (ms === undefined) return [];
      return [[channel === undefined ? `${itemKey(item)}@${ms}` : itemKey(item), ms]];
    });
    if (timed.length === 0) return {};
    const newest = Math.max(...timed.map(([, ms]) => ms));
    const recent = timed.filter(([, ms]) => ms >= newest - KEEP_RECENT_MS);
    return { ch: channel ?? listMarkOf(spec.id), recent };
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
