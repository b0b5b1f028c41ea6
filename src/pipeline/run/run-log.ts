/**
 * The run log's writing side: every run (import, validate, verify, replay) opens it with
 * `openRunLog` and tells it what happens. It is written beside the checkpoint
 * (`<checkpoint>.runs.ndjson`, see docs/report.md for each line's fields) and read by `report`.
 *
 * Usage, for a command that is not wired yet:
 * ```ts
 * const log = await openRunLog(config.checkpoint, { command: 'verify', config });
 * log.phaseStart('users', 120);  ...  log.phaseEnd('users', { present: 118 }, true);
 * log.event('verify-end', { entities: { users: { expected, present, missing, ... } } });
 * log.end('completed', { exitCode: 0 });
 * ```
 * A run log that cannot be opened never stops a run: `openRunLog` then returns a log that drops
 * everything, and says why in `problem`.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { RunLogFile, type RunLogLine } from '../../checkpoint/run-log-file.js';
import { fsReason, runLogPathOf } from '../../checkpoint/state-files.js';
import { configDigest } from '../../config/digest.js';
import type { EntityName } from '../../entities/types.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

/** What a run says about itself when it starts. Never the API key: `config` is digested without secrets. */
export interface RunStart {
  /** import, validate, verify, replay, demo, ... */
  command: string;
  /** The run's config; only its digest, with secrets removed, and `target`/`settings` are kept. */
  config?: { baseUrl?: string; appId?: string; requestsPerMinute?: number | 'auto'; [key: string]: unknown };
  /** Settings that matter to read a run's pace: rate, batch size, concurrency, retries. */
  settings?: Record<string, unknown>;
  /** Anything else the command wants on its start line. */
  [field: string]: unknown;
}

export interface RunLog {
  readonly path: string;
  /** This run's id; every line carries it. */
  readonly run: string;
  /** Set when the log could not be opened: the run goes on, logging nothing. */
  readonly problem?: string;
  /** Any line: `log.event('verify-end', {entities})`. */
  event(type: string, fields?: Record<string, unknown>): void;
  phaseStart(entity: EntityName, expected?: number): void;
  /** `sample`: the run's figures at the phase's end (see run-samples.ts), so a short run has points to draw. */
  phaseEnd(entity: EntityName, counts: object, completed: boolean, sample?: Record<string, unknown>): void;
  /** Figures of the last few seconds (records, requests, 429s, retries, latency, the limiter's rate). */
  sample(figures: Record<string, unknown>): void;
  /** A stop asked for (SIGINT/SIGTERM); the run's end line follows when it has saved its progress. */
  interrupted(signal: string): void;
  /** The last line: status and the run's counts. Closes the log (later calls are dropped). */
  end(status: string, fields?: Record<string, unknown>): void;
}

/** Opens the run log of the migration whose checkpoint is `checkpoint` and writes the run's start line. */
export async function openRunLog(checkpoint: string, start: RunStart): Promise<RunLog> {
  const path = runLogPathOf(checkpoint);
  const run = randomBytes(6).toString('hex');
  let file: RunLogFile | undefined;
  let problem: string | undefined;
  try {
    file = await RunLogFile.open(path);
  } catch (err) {
    problem = `cannot write the run log ${path}: ${fsReason(err)}; the run goes on without it`;
  }
  const started = Date.now();
  const write = (type: string, fields?: Record<string, unknown>) => {
    if (!file) return;
    try {
      file.append({ type, t: Date.now(), run, ...fields } as RunLogLine);
    } catch (err) {
      // A full disk mid-run: the migration matters more than its log.
      file.close();
      file = undefined;
      problem = `the run log ${path} stopped: ${fsReason(err)}`;
    }
  };
  const { config, command, settings, ...rest } = start;
  write('run-start', {
    command,
    version: pkg.version,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    ...(config ? { target: targetOf(config), configDigest: configDigest(config) } : {}),
    settings: settings ?? settingsOf(config),
    ...rest,
  });
  return {
    path,
    run,
    get problem() {
      return problem;
    },
    event: write,
    phaseStart: (entity, expected) => write('phase-start', { entity, expected }),
    phaseEnd: (entity, counts, completed, sample) => write('phase-end', { entity, completed, counts, sample }),
    sample: (figures) => write('sample', figures),
    interrupted: (signal) => write('interrupt', { signal }),
    end(status, fields) {
      write('run-end', { status, elapsedMs: Date.now() - started, ...fields });
      file?.close();
      file = undefined;
    },
  };
}

/** Host and app id; never the path's query or credentials. */
function targetOf(config: NonNullable<RunStart['config']>): { host?: string; appId?: string } {
  let host: string | undefined;
  try {
    host = config.baseUrl ? new URL(config.baseUrl).host : undefined;
  } catch {
    host = undefined;
  }
  return { host, appId: config.appId };
}

function settingsOf(config: RunStart['config']): Record<string, unknown> | undefined {
  if (!config) return undefined;
  const { requestsPerMinute, batchSize, concurrency, retries } = config;
  return { requestsPerMinute, batchSize, concurrency, retries };
}
