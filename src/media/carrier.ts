/**
 * Carries media sources into the bucket: each distinct source once (the media map remembers it
 * across runs), each distinct content once (the key is the bytes' sha256 and nothing else, so two
 * names of one file are one object; HeadObject before an upload),
 * at most `media.concurrency` at a time, within `media.bandwidth`. A file that cannot be had is a
 * failure with a reason, counted and listed; it never stops the run.
 */
import { mkdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import type { MediaConfig } from '../config/media-schema.js';
import { createDispatcher } from '../http/dispatcher.js';
import type { ProxySettings } from '../http/proxy-env.js';
import type { Clock } from '../clock.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { Bandwidth } from './bandwidth.js';
import { Bucket } from './bucket.js';
import { downloadFile, hashLocalFile, type DownloadContext, type Fetched } from './download.js';
import type { HostRules } from './host-rules.js';
import { type ExpiringLinks, type LinkRefresher, linkExpired } from './expiring-links.js';
import type { MediaEntry, MediaMap } from './media-map.js';
import type { MediaSource } from './media-sources.js';
import type { DeclaredType } from './web-page.js';
import { guardedLookup } from './safe-address.js';

/** What a run did with media. */
export interface MediaCounts {
  /** Distinct sources met. */
  files: number;
  uploaded: number;
  /** Found in the media map or already in the bucket: not uploaded. */
  reused: number;
  failed: number;
  /** Bytes uploaded. */
  bytes: number;
}

export interface MediaFailure {
  source: string;
  display: string;
  reason: string;
}

export interface CarrierOptions {
  config: MediaConfig;
  map: MediaMap;
  rules: HostRules;
  policy: RetryPolicy;
  clock: Clock;
  proxy: ProxySettings;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The systems whose marked links are signed again once expired (the systems' registry). */
  expiringLinks: readonly ExpiringLinks[];
  /**
   * The folder of downloads in progress: emptied at the start (what a killed run left), removed at
   * the end. The caller holds the migration's lock, so no other run uses it.
   */
  tempDir: string;
  /** Called once per failed source, as it fails. */
  onFailure(failure: MediaFailure): void;
}

export type MediaAnswer = { ok: true; entry: MediaEntry } | { ok: false; reason: string } | undefined;

export class MediaCarrier {
  readonly counts: MediaCounts = { files: 0, uploaded: 0, reused: 0, failed: 0, bytes: 0 };
  private readonly failures = new Map<string, string>();
  private readonly started = new Set<string>();
  private readonly limit: LimitFunction;
  private readonly download: DownloadContext;
  private tempSeq = 0;
  /** Each made when the first expired link of its system is met: most imports have none. */
  private readonly refreshers = new Map<ExpiringLinks, LinkRefresher>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Keys being uploaded now: a second source with the same bytes waits for the first. */
  private readonly uploading = new Map<string, Promise<void>>();

  private constructor(
    private readonly options: CarrierOptions,
    private readonly bucket: Bucket,
    private readonly tempDir: string,
  ) {
    const { config } = options;
    this.limit = pLimit(config.concurrency);
    const allowPrivate = new Set(config.allowPrivateHosts.map((h) => h.toLowerCase()));
    this.download = {
      dispatcher: createDispatcher({
        connections: config.concurrency,
        timeoutMs: options.timeoutMs,
        proxy: options.proxy,
        lookup: guardedLookup(allowPrivate),
      }),
      policy: options.policy,
      clock: options.clock,
      rules: options.rules,
      allowPrivate,
      bandwidth: new Bandwidth(config.bandwidth, options.clock),
      maxFileBytes: config.maxFileBytes,
      signal: options.signal,
      limiters: new Map(),
    };
  }

  static async open(options: CarrierOptions): Promise<MediaCarrier> {
    const bucket = await Bucket.open(options.config, options.env);
    const { tempDir } = options;
    try {
      await rm(tempDir, { recursive: true, force: true });
      await mkdir(tempDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      bucket.close();
      throw err;
    }
    return new MediaCarrier(options, bucket, tempDir);
  }

  /** What became of a source: its entry, its failure, or undefined when it was never carried. */
  answerFor(source: string): MediaAnswer {
    const entry = this.options.map.bySource.get(source);
    if (entry) return { ok: true, entry };
    const reason = this.failures.get(source);
    return reason === undefined ? undefined : { ok: false, reason };
  }

  /** Sources waiting for a slot or being carried. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** Queues a source (once per run); resolves when it is carried or failed. */
  offer(item: MediaSource): Promise<void> {
    if (this.started.has(item.source)) return Promise.resolve();
    this.started.add(item.source);
    this.counts.files++;
    if (this.options.map.bySource.has(item.source)) {
      this.counts.reused++;
      return Promise.resolve();
    }
    const done = this.limit(() => this.carry(item)).finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
    return done;
  }

  private async carry(item: MediaSource): Promise<void> {
    if (this.options.signal.aborted) return;
    if (item.refused !== undefined) return this.fail(item, item.refused);
    const temp = path.join(this.tempDir, String(this.tempSeq++));
    let fetched: Fetched;
    if (item.file !== undefined) fetched = await this.hashExportFile(item);
    else fetched = await this.fetchUrl(item.url!, temp, item.declared);
    if (!fetched.ok) return this.fail(item, fetched.reason);
    const { file } = fetched;
    try {
      // No extension in the key: `a.png` and the same bytes named `a.jpg` are one object. A map of an
      // earlier version may hold the bytes under `<sha256>.<ext>`: that object is used, not a second one.
      const key = this.options.map.keyOfContent(file.sha256) ?? `${this.options.config.prefix}${file.sha256}`;
      const mimeType = file.mimeType && file.mimeType !== 'application/octet-stream' ? file.mimeType : '';
      const uploaded = await this.store(key, file.path, file.size, mimeType || 'application/octet-stream');
      if (uploaded) {
        this.counts.uploaded++;
        this.counts.bytes += file.size;
      } else this.counts.reused++;
      await this.options.map.add({ source: item.source, key, size: file.size, sha256: file.sha256, mimeType });
    } catch (err) {
      if (this.options.signal.aborted) return;
      this.fail(item, err instanceof Error ? err.message : String(err));
    } finally {
      if (file.temp) await rm(file.path, { force: true });
    }
  }

  /**
   * A URL's bytes; a link a pull marked (expiring-links.ts) is asked of its system again when it has
   * expired, by its `Expires` or by the CDN's 403/410, and its fresh link downloaded instead.
   */
  private async fetchUrl(url: string, temp: string, declared: DeclaredType | undefined): Promise<Fetched> {
    const links = this.options.expiringLinks.find((l) => l.marks(url));
    if (links === undefined) return downloadFile(url, temp, this.download, declared);
    // A link known to be expired is not tried: its 403 would only cost a request.
    if (!linkExpired(url, this.options.clock.now())) {
      const first = await downloadFile(url, temp, this.download, declared);
      if (first.ok || !/^HTTP (403|410)\b/.test(first.reason)) return first;
    }
    let refresher = this.refreshers.get(links);
    if (refresher === undefined) {
      const { env, policy, clock, proxy, timeoutMs, signal } = this.options;
      refresher = links.refresher({ env, policy, clock, proxy, timeoutMs, signal });
      this.refreshers.set(links, refresher);
    }
    const fresh = await refresher.refresh(url);
    if ('reason' in fresh) return { ok: false, reason: fresh.reason };
    const again = await downloadFile(fresh.url, temp, this.download, declared);
    return again.ok ? again : { ok: false, reason: `${again.reason} (from the fresh link ${links.system} gave)` };
  }

  /** Puts the bytes under `key` unless the bucket has them; true when this call uploaded them. */
  private async store(key: string, file: string, size: number, mimeType: string): Promise<boolean> {
    const busy = this.uploading.get(key);
    if (busy) {
      await busy;
      return false;
    }
    if (this.options.map.keys.has(key)) return false;
    let uploaded = false;
    const work = (async () => {
      if (await this.bucket.has(key)) return;
      await this.bucket.put(key, file, size, mimeType, this.options.signal);
      uploaded = true;
    })();
    this.uploading.set(key, work);
    try {
      await work;
    } finally {
      this.uploading.delete(key);
    }
    this.options.map.keys.add(key);
    return uploaded;
  }

  private async hashExportFile(item: MediaSource): Promise<Fetched> {
    // A link inside the export that points out of it is not the export's file.
    const [real, root] = await Promise.all([realpath(item.file!).catch(() => undefined), realpath(item.root!)]);
    if (real === undefined) return { ok: false, reason: 'no such file in the export' };
    if (real !== root && !real.startsWith(`${root}${path.sep}`))
      return { ok: false, reason: 'links out of the export folder' };
    return hashLocalFile(real, this.download);
  }

  private fail(item: MediaSource, reason: string): void {
    this.failures.set(item.source, reason);
    this.counts.failed++;
    this.options.onFailure({ source: item.source, display: item.display, reason });
  }

  /** The sources in flight now, for a reader to wait on the first to finish. */
  inFlightList(): Promise<void>[] {
    return [...this.inFlight];
  }

  /** Waits for every queued source. */
  async idle(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async close(): Promise<void> {
    this.bucket.close();
    for (const refresher of this.refreshers.values()) await refresher.close();
    await this.download.dispatcher.close().catch(() => undefined);
    await rm(this.tempDir, { recursive: true, force: true });
  }
}
