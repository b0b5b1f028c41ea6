/**
 * Puts the media pass of an import together: the allow-list with its headers from the environment,
 * the media map and problems list beside the checkpoint, the carrier and its bucket. Failures are
 * written to the problems list as they come (the last run's list replaces the one before).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { mediaMapPathOf, mediaProblemsPathOf, mediaTempPathOf, STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import type { MediaConfig } from '../../config/media-schema.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import type { Clock } from '../../clock.js';
import { DEFAULT_RETRY_POLICY } from '../../http/retry-policy.js';
import { MediaCarrier, type MediaCounts, type MediaFailure } from '../../media/carrier.js';
import { HostRules } from '../../media/host-rules.js';
import { MediaMap } from '../../media/media-map.js';
import { MediaSources, type ExportFolder } from '../../media/media-sources.js';
import type { UnlistedHosts } from '../../media/unlisted-hosts.js';
import { loadSystems } from '../../systems/index.js';
import type { MediaRun } from './media-pass.js';

/** What the summary says of media. */
export interface MediaSummary extends MediaCounts {
  map: string;
  problems: string;
  /** The first failures, for the summary (all of them are in the problems list). */
  failures: { source: string; reason: string }[];
  /** Attachments left at their URL as their host is not on `media.hosts`; absent when there are none. */
  notListed?: UnlistedHosts;
  /** From the start of the media pass until its last file was carried or failed (or until now). */
  elapsedMs: number;
}

/** Failures listed in the summary itself; the problems list has them all. */
const LISTED_FAILURES = 20;

export interface OpenMediaOptions {
  config: MediaConfig;
  checkpoint: string;
  exportFolder?: ExportFolder;
  /** Where a file's path is shown from. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  proxy: ProxySettings;
  timeoutMs: number;
  hardStop: AbortSignal;
  /** The run's clock: the downloads' waits for Retry-After and backoff. */
  clock: Clock;
}

export class MediaSession {
  private readonly started = Date.now();
  private finishedAt: number | undefined;

  private constructor(
    readonly run: MediaRun,
    private readonly map: MediaMap,
    private readonly problems: FileHandle,
    private readonly problemsPath: string,
    private readonly failures: MediaFailure[],
  ) {}

  static async open(options: OpenMediaOptions): Promise<MediaSession> {
    const { config } = options;
    const rules = new HostRules(config.hosts, options.env);
    const map = await MediaMap.open(mediaMapPathOf(options.checkpoint));
    const problemsPath = mediaProblemsPathOf(options.checkpoint);
    const failures: MediaFailure[] = [];
    let problems: FileHandle | undefined;
    try {
      problems = await open(problemsPath, 'w', STATE_FILE_MODE);
      const sink = problems;
      let tail: Promise<unknown> = Promise.resolve();
      const carrier = await MediaCarrier.open({
        config,
        map,
        rules,
        policy: DEFAULT_RETRY_POLICY,
        clock: options.clock,
        proxy: options.proxy,
        timeoutMs: options.timeoutMs,
        env: options.env,
        signal: options.hardStop,
        expiringLinks: (await loadSystems()).flatMap(([, system]) => system.expiringLinks ?? []),
        tempDir: mediaTempPathOf(options.checkpoint),
        onFailure: (failure) => {
          failures.push(failure);
          const line = { source: failure.display, reason: failure.reason, at: new Date().toISOString() };
          tail = tail.then(() => sink.write(`${JSON.stringify(line)}\n`)).catch(() => undefined);
        },
      });
      const sources = new MediaSources(rules, config.exportFiles, options.exportFolder, options.cwd);
      const publicBaseUrl = config.publicBaseUrl.replace(/\/+$/, '');
      const run: MediaRun = { carrier, sources, publicBaseUrl, unlisted: {} };
      return new MediaSession(run, map, problems, problemsPath, failures);
    } catch (err) {
      await problems?.close().catch(() => undefined);
      await map.close().catch(() => undefined);
      throw err;
    }
  }

  /** The pass carried or failed every file it met. */
  finished(): void {
    this.finishedAt = Date.now();
  }

  summary(): MediaSummary {
    const byHost = this.run.unlisted;
    const total = Object.values(byHost).reduce((sum, n) => sum + n, 0);
    return {
      ...(total > 0 ? { notListed: { total, byHost } } : {}),
      elapsedMs: (this.finishedAt ?? Date.now()) - this.started,
      ...this.run.carrier.counts,
      map: this.map.path,
      problems: this.problemsPath,
      failures: this.failures.slice(0, LISTED_FAILURES).map((f) => ({ source: f.display, reason: f.reason })),
    };
  }

  async close(): Promise<void> {
    await this.run.carrier.close().catch(() => undefined);
    await this.map.close().catch(() => undefined);
    await this.problems.close().catch(() => undefined);
  }
}
