import type { EntityName } from '../../entities/types.js';
import type { RunCounts, RunEvents } from '../events.js';
import type { RunLog } from './run-log.js';

/** Latencies kept per sample interval at most: beyond it a reservoir keeps a fair pick of them. */
const KEEP_LATENCIES = 2048;

/**
 * What the run's requests did: counted as they start, and answers by status with their latency
 * between two samples (read and reset at each sample). Fed by the run's request counters (run.ts).
 */
export class TrafficStats {
  /** Requests started since the run started (every try), and of them the tries again. */
  requests = 0;
  retries = 0;
  /** 429 answers since the run started. */
  rateLimited = 0;
  private latencies: number[] = [];
  private seen = 0;

  started(isRetry: boolean): void {
    this.requests++;
    if (isRetry) this.retries++;
  }

  answered(status: number, latencyMs: number): void {
    if (status === 429) this.rateLimited++;
    this.seen++;
    if (this.latencies.length < KEEP_LATENCIES) this.latencies.push(latencyMs);
    else {
      const at = Math.floor(Math.random() * this.seen);
      if (at < KEEP_LATENCIES) this.latencies[at] = latencyMs;
    }
  }

  /** p50 and p95 of the latencies since the last call (ms), then starts a new interval. */
  takeLatency(): { p50?: number; p95?: number } {
    const kept = this.latencies.sort((a, b) => a - b);
    this.latencies = [];
    this.seen = 0;
    if (kept.length === 0) return {};
    const at = (q: number) => Math.round(kept[Math.min(kept.length - 1, Math.floor(q * kept.length))]);
    return { p50: at(0.5), p95: at(0.95) };
  }
}

/** How often a sample line is written: a few seconds, so a 6-hour run has about 10,000. */
export const SAMPLE_EVERY_MS = 2000;

/** Samples on a timer; and now, for a phase's end line. */
export interface RunSampler {
  /** A sample's figures now, for another line to carry; the next timed one comes `everyMs` later. */
  figures(): Record<string, unknown>;
  /** The last sample; no more after it. */
  stop(): void;
}

/**
 * Writes a sample of an import-like run every `everyMs`, and gives one when asked (each phase's end
 * line carries one, so a run of seconds has a point per phase at no extra line): records done and
 * requests, retries and 429s so far (cumulative, so any two samples give a rate), latency p50/p95 of
 * the interval, the limiter's rate, and the phase under way with its records done.
 */
export function sampleRun(
  log: RunLog,
  counts: RunCounts,
  traffic: TrafficStats,
  rate: () => number | undefined,
  phase: () => EntityName | undefined,
  everyMs = SAMPLE_EVERY_MS,
): RunSampler {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(take, everyMs);
    timer.unref();
  };
  const figures = () => {
    clearTimeout(timer);
    let records = 0;
    for (const c of Object.values(counts)) {
      records += c!.imported + c!.alreadyPresent + c!.rejected + c!.skipped + c!.fileProblems;
    }
    const { requests, retries } = traffic;
    const entity = phase();
    const p = entity ? counts[entity] : undefined;
    const phaseDone = p ? p.imported + p.alreadyPresent + p.rejected + p.skipped + p.resumed : undefined;
    const r = rate();
    arm();
    return {
      records,
      requests,
      retries,
      rateLimited: traffic.rateLimited,
      ...traffic.takeLatency(),
      rate: r === undefined ? undefined : Math.round(r * 10) / 10,
      phase: entity,
      phaseDone,
    };
  };
  const take = () => log.sample(figures());
  arm();
  return {
    figures,
    stop() {
      take();
      clearTimeout(timer);
    },
  };
}

/**
 * The run's events, also told to the run log: phase starts and ends. Keeps which phase is under way
 * for the samples. Delegates method by method: a reporter's methods live on its prototype.
 */
export function loggedEvents(
  log: RunLog,
  shown: RunEvents,
  sampleNow?: () => Record<string, unknown> | undefined,
): RunEvents & { current(): EntityName | undefined } {
  let current: EntityName | undefined;
  return {
    phaseStarted(entity, expected) {
      current = entity;
      log.phaseStart(entity, expected);
      shown.phaseStarted(entity, expected);
    },
    progress: (entity, counts) => shown.progress(entity, counts),
    phaseFinished(entity, counts, completed) {
      log.phaseEnd(entity, counts, completed, sampleNow?.());
      shown.phaseFinished(entity, counts, completed);
    },
    retrying: (entity, notice) => shown.retrying(entity, notice),
    warning: (message) => shown.warning(message),
    info: (message) => shown.info(message),
    current: () => current,
  };
}
