/**
 * The one run every command goes through: the migration's lock and ledger, the run log (start,
 * phases, samples, interrupts, end), Ctrl+C, the clients with their limiters and the retry policy,
 * and the cleanup, whichever way the command's work ends. A command is a body over a `Run`.
 */
import { CheckpointLock } from '../../checkpoint/lock.js';
import type { Traffic } from '../../checkpoint/ledger.js';
import { CheckpointStore, hashSources } from '../../checkpoint/store.js';
import { type Clock, systemClock } from '../../clock.js';
import type { MigrateConfig } from '../../config/schema.js';
import { InterruptedError, MigrationError } from '../../errors.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import type { RunCounts, RunEvents } from '../events.js';
import { openRunLog, type RunLog } from './run-log.js';
import { loggedEvents, sampleRun, TrafficStats, type RunSampler } from './run-samples.js';
import { RunClients } from './run-clients.js';
import { readProxySettings } from '../../http/proxy-env.js';
import { installStopSignals, type SignalSource } from './signals.js';

export interface RunSpec {
  /** The run log's name for the run, and the ledger's for its traffic. */
  command: string;
  config: MigrateConfig;
  /** What a person sees (a reporter); the run adds the run log and collects the warnings. */
  events: RunEvents;
  /**
   * The ledger: `write` takes the lock and opens the checkpoint (new when there is none, or with
   * `fresh`); `existing` takes the lock and opens it only if it is there; `none` neither (validate).
   */
  ledger: 'write' | 'existing' | 'none';
  /** What identifies the sources in the ledger; without it, only the target is checked. */
  sourcesIdentity?: unknown;
  /** A preset's id rule: a ledger made under another one is refused (ids would differ). */
  idRule?: string;
  fresh?: boolean;
  /** Said once at the first Ctrl+C. */
  stoppingNotice?: string;
  proxy?: ProxySettings;
  /** Extra fields of the run log's start line. */
  start?: Record<string, unknown>;
  /** Lock files besides the ledger's, held for the whole run (a pull's output folder). */
  locks?: readonly string[];
  /** The environment the run reads (proxies, media credentials) and the directory paths are shown from. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where Ctrl+C and SIGTERM come from: the process's, or a caller's own. */
  signals: SignalSource;
  /** Called at a third signal: the process exits at once. */
  exit?: (code: number) => void;
  /**
   * Time for every wait of the run (limiters, retries, downloads, sync's interval, the reporter's
   * intervals): the system's by default; tests pass a virtual one.
   */
  clock?: Clock;
}

/** How a run ended, for its last run log line. */
export interface RunEnd {
  status: string;
  fields?: Record<string, unknown>;
}

export interface Run {
  readonly command: string;
  readonly config: MigrateConfig;
  /** The reporter's events, also told to the run log; warnings are collected in `warnings`. */
  readonly events: RunEvents;
  readonly warnings: string[];
  readonly log: RunLog;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Soft stop (first Ctrl+C): take nothing new. */
  readonly stop: AbortSignal;
  /** Hard stop: abort what is in flight. */
  readonly hardStop: AbortSignal;
  /** Absent for `none`, and for `existing` when there is no checkpoint. */
  readonly ledger?: CheckpointStore;
  readonly clients: RunClients;
  /** The spec's clock, or the system's. */
  readonly clock: Clock;
  /** This run's requests, counted into the ledger under `command` (default: the run's). */
  requests(command?: string): RequestCounter;
  /** Samples `counts` into the run log every few seconds until the run ends. */
  sample(counts: RunCounts, rate: () => number | undefined): void;
  /** Fields the run log's end line carries besides the outcome's (whichever way the run ends). */
  note(fields: Record<string, unknown>): void;
}

/** What each request tells the run: the ledger's traffic and the run log's samples come from it. */
export interface RequestCounter {
  readonly traffic: Traffic;
  requestStarted(isRetry: boolean): void;
  answered(status: number, latencyMs: number): void;
}

/**
 * Runs `body` inside the run: everything opened is closed and the run log ended, whether it returns,
 * throws or is stopped. `end` names the outcome for the run log.
 */
export async function withRun<T>(
  spec: RunSpec,
  body: (run: Run) => Promise<T>,
  end: (result: T, run: Run) => RunEnd,
): Promise<T> {
  const { config } = spec;
  const ledgerLock = spec.ledger === 'none' ? [] : [`${config.checkpoint}.lock`];
  const locks = [...ledgerLock, ...(spec.locks ?? [])].map((file) => new CheckpointLock(file));
  const releaseLocks = async () => {
    for (const held of locks) await held.release();
  };
  let ledger: CheckpointStore | undefined;
  try {
    for (const held of locks) await held.acquire();
    if (spec.fresh && spec.ledger === 'write') await checkKeyFirst(spec);
    ledger = await openLedger(spec);
  } catch (err) {
    await releaseLocks();
    throw err;
  }
  ledger?.recordRun(spec.command, 'running');
  // Opened under the lock, once the checkpoint is this migration's: a run refused as another
  // migration's writes nothing here, and two runs never interleave their lines.
  const log = await openRunLog(config.checkpoint, { command: spec.command, config, fresh: spec.fresh, ...spec.start });
  const warnings: string[] = [];
  const stats = new TrafficStats();
  let sampler: RunSampler | undefined;
  const logged = loggedEvents(log, spec.events, () => sampler?.figures());
  const events: RunEvents = {
    ...logged,
    warning: (message) => {
      warnings.push(message);
      spec.events.warning(message);
    },
  };
  if (log.problem) events.warning(log.problem);
  const signals = installStopSignals(
    spec.signals,
    () => {
      log.interrupted(String(signals.stop.reason ?? 'stop'));
      if (spec.stoppingNotice) spec.events.info(spec.stoppingNotice);
    },
    { exit: spec.exit },
  );
  const clock = spec.clock ?? systemClock;
  const clients = new RunClients(config, signals, proxyOf(spec), clock);
  const sending = new Map<string, Traffic>();
  const noted: Record<string, unknown> = {};
  let lastTick = Date.now();
  // Sending time goes into the ledger as it passes, so a run killed mid-way still counts what it spent.
  const tickSending = () => {
    const now = Date.now();
    for (const t of sending.values()) t.sendingMs += now - lastTick;
    lastTick = now;
  };
  const run: Run = {
    command: spec.command,
    config,
    events,
    warnings,
    log,
    env: spec.env,
    cwd: spec.cwd,
    stop: signals.stop,
    hardStop: signals.hardStop,
    ledger,
    clients,
    clock,
    requests(command = spec.command) {
      const traffic = ledger?.traffic(command) ?? { requests: 0, retries: 0, rateLimited: 0, sendingMs: 0 };
      if (!sending.has(command)) {
        tickSending();
        sending.set(command, traffic);
      }
      return {
        traffic,
        requestStarted(isRetry) {
          traffic.requests++;
          if (isRetry) traffic.retries++;
          stats.started(isRetry);
        },
        answered(status, latencyMs) {
          if (status === 429) traffic.rateLimited++;
          stats.answered(status, latencyMs);
          tickSending();
        },
      };
    },
    sample(counts, rate) {
      // A run that samples twice (verify --repair reads twice) ends the first sampler's timer first.
      sampler?.stop();
      sampler = sampleRun(log, counts, stats, rate, logged.current);
    },
    note(fields) {
      Object.assign(noted, fields);
    },
  };
  let result: T | undefined;
  let thrown: unknown;
  let ended = false;
  try {
    result = await body(run);
    ended = true;
    return result;
  } catch (err) {
    thrown = err;
    throw err;
  } finally {
    sampler?.stop();
    tickSending();
    await clients.close();
    // A stop that ended the body early is an interruption, not a failure: the next run resumes.
    const stopped = thrown instanceof InterruptedError;
    const outcome = ended ? end(result as T, run) : stopped ? { status: 'interrupted' } : undefined;
    const error = thrown instanceof MigrationError ? thrown.code : thrown === undefined ? undefined : 'UNEXPECTED';
    ledger?.recordRun(spec.command, outcome?.status ?? 'failed', stopped ? undefined : error);
    // The body closed the files kept in step with the ledger; this last write keeps their marks.
    ledger?.detachCompanions();
    await ledger?.save().catch((err: unknown) => events.warning(err instanceof Error ? err.message : String(err)));
    if (outcome) {
      const { status, fields } = outcome;
      log.end(status, { ...fields, ...noted });
    } else {
      const { code, message } = thrown instanceof MigrationError ? thrown : { code: 'UNEXPECTED', message: undefined };
      log.end('failed', { error: { code, message }, ...noted });
    }
    signals.dispose();
    await releaseLocks();
  }
}

/** The run's proxies: given, else read from the run's own environment (never the process's). */
const proxyOf = (spec: RunSpec) => spec.proxy ?? readProxySettings(spec.env);

/**
 * One read with the key before a fresh ledger replaces the migration's and its files are set aside:
 * a key the service refuses (or a host it cannot reach) then leaves the earlier migration whole.
 */
async function checkKeyFirst(spec: RunSpec): Promise<void> {
  const stop = new AbortController();
  const clients = new RunClients(spec.config, { stop: stop.signal, hardStop: stop.signal }, proxyOf(spec));
  try {
    await (await clients.restClient()).get('users', { perPage: 1, page: 1 });
  } finally {
    await clients.close();
  }
}

async function openLedger(spec: RunSpec): Promise<CheckpointStore | undefined> {
  const { config } = spec;
  if (spec.ledger === 'none') return undefined;
  const target = { baseUrl: config.baseUrl, appId: config.appId };
  const interval = config.checkpointIntervalMs;
  if (spec.ledger === 'existing') return CheckpointStore.openExisting(config.checkpoint, target, interval, spec.idRule);
  const identity = { target, sourcesHash: hashSources(spec.sourcesIdentity), idRule: spec.idRule };
  return CheckpointStore.open(config.checkpoint, identity, Boolean(spec.fresh), interval);
}
