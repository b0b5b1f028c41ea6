import { CheckpointLock } from '../../checkpoint/lock.js';
import { CheckpointStore, hashSources } from '../../checkpoint/store.js';
import type { MigrateConfig } from '../../config/schema.js';
import { ExitCode, InterruptedError, MigrationError } from '../../errors.js';
import { ImportClient } from '../../http/import-client.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import { RateLimiter, systemClock } from '../../http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../http/retry-policy.js';
import { sumCounts, type ImportSummary } from './summary.js';
import type { RunCounts, RunEvents } from '../events.js';
import type { EntityPlan } from '../../sources/plan.js';
import { RejectsWriter } from '../../checkpoint/rejects-file.js';
import { IdLog } from '../../checkpoint/id-log.js';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import { runImport } from './run-import.js';
import { BatchSender } from './send-batch.js';
import { suspectDuplicateProblem } from '../../rules/export-index.js';

export interface ImportSessionOptions {
  config: MigrateConfig;
  plans: EntityPlan[];
  /** What identifies the sources in the checkpoint (the configured paths, not the files they match today). */
  sourcesIdentity: unknown;
  /** A preset's id map written aside: put in place once this run holds its checkpoint, before sending. */
  idMap?: { commit(): Promise<void> };
  fresh: boolean;
  sinceSec?: number;
  events: RunEvents;
  /** Count records first so progress can show a total and ETA. */
  estimateTotals?: boolean;
  stop: AbortSignal;
  hardStop: AbortSignal;
  /** Default: the environment's (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
}

/**
 * One `import` from start to summary: takes the checkpoint lock, opens checkpoint and rejects file
 * (both must be writable before anything is sent; their folders are created), puts the preset's id
 * map in place, runs the phases, and always saves and unlocks.
 */
export async function runImportSession(options: ImportSessionOptions): Promise<ImportSummary> {
  const { config } = options;
  const started = Date.now();
  // The summary lists the run's warnings too, so a CI job reading --json sees them.
  const warnings: string[] = [];
  const shown = options.events;
  const events: RunEvents = {
    phaseStarted: (entity, expected) => shown.phaseStarted(entity, expected),
    progress: (entity, counts) => shown.progress(entity, counts),
    phaseFinished: (entity, counts, completed) => shown.phaseFinished(entity, counts, completed),
    retrying: (entity, notice) => shown.retrying(entity, notice),
    info: (message) => shown.info(message),
    warning: (message) => {
      warnings.push(message);
      shown.warning(message);
    },
  };
  const lock = new CheckpointLock(`${config.checkpoint}.lock`);
  await lock.acquire();
  let client: ImportClient | undefined;
  let rejects: RejectsWriter | undefined;
  let idLog: IdLog | undefined;
  const counts: RunCounts = {};
  let checkpoint: CheckpointStore | undefined;
  try {
    checkpoint = await CheckpointStore.open(
      config.checkpoint,
      { target: { baseUrl: config.baseUrl, appId: config.appId }, sourcesHash: hashSources(options.sourcesIdentity) },
      options.fresh,
      config.checkpointIntervalMs,
    );
    rejects = await RejectsWriter.open(config.rejects, checkpoint.snapshot.rejects);
    idLog = await IdLog.open(idLogPathOf(config.checkpoint), checkpoint.snapshot.imported);
    // Before the first save, so that every checkpoint of this run carries both files' marks.
    checkpoint.keepInStep(rejects);
    checkpoint.keepInStep(idLog.companion, 'imported');
    await checkpoint.save();
    // Here the checkpoint is locked, writable and this migration's: the id map becomes this run's.
    await options.idMap?.commit();
    const { dropped, leftWhole } = rejects.resumed;
    if (dropped > 0) {
      const lines = dropped === 1 ? '1 line' : `${dropped} lines`;
      events.info(
        `${config.rejects}: took out ${lines} the interrupted run wrote for records it had not acknowledged; ` +
          'they are read and checked again',
      );
    }
    if (leftWhole)
      events.warning(
        `${config.rejects} is left as it is (${leftWhole}): records the interrupted run rejected may be listed again`,
      );
    client = new ImportClient({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey!,
      apiVersion: config.apiVersion,
      connections: config.concurrency,
      timeoutMs: config.timeoutMs,
      proxy: options.proxy,
    });
    // A fatal failure ends the sends still retrying too: their batches are read again on resume.
    const failed = new AbortController();
    const sender = new BatchSender({
      client,
      limiter: new RateLimiter(config.requestsPerMinute, systemClock),
      policy: { ...DEFAULT_RETRY_POLICY, retries: config.retries },
      clock: systemClock,
      hardStop: options.hardStop,
      abandon: failed.signal,
      events: {
        // Into the phase's counts as they happen, so a batch that fails in the end still counts its tries.
        requestStarted: (entity, isRetry) => {
          const phase = counts[entity];
          if (!phase) return;
          phase.requests++;
          if (isRetry) phase.retries++;
        },
        retrying: events.retrying,
      },
      judgeAlreadyExists: (record) => {
        if (!record.duplicateSuspect) return undefined;
        if (record.sameContentSuspect) return 'duplicate';
        const problem = suspectDuplicateProblem(record);
        return { code: problem.rule, message: problem.message };
      },
    });
    const resumed = checkpoint.resumed;
    let error: unknown;
    try {
      await runImport(
        {
          plans: options.plans,
          checkpoint,
          rejects,
          idLog,
          sender,
          events,
          batchSize: config.batchSize,
          concurrency: config.concurrency,
          importSoftDeleted: config.importSoftDeleted,
          sinceSec: options.sinceSec,
          nowSec: Math.floor(Date.now() / 1000),
          stop: options.stop,
          abandonSends: () => failed.abort(),
          estimateTotals: options.estimateTotals,
        },
        counts,
      );
    } catch (err) {
      error = err;
    }
    return summarise(options, counts, started, resumed, error, warnings);
  } finally {
    if (options.hardStop.aborted) await client?.destroy().catch(() => undefined);
    else await client?.close().catch(() => undefined);
    // The checkpoint first: its last write puts the rejects file's lines on disk before itself.
    await checkpoint?.flush().catch(() => undefined);
    await rejects?.close().catch(() => undefined);
    await idLog?.close().catch(() => undefined);
    await lock.release();
  }
}

function summarise(
  options: ImportSessionOptions,
  entities: RunCounts,
  started: number,
  resumed: boolean,
  error: unknown,
  warnings: string[],
): ImportSummary {
  const totals = sumCounts(entities);
  const base = {
    entities,
    totals,
    elapsedMs: Date.now() - started,
    checkpoint: options.config.checkpoint,
    rejects: options.config.rejects,
    resumed,
    warnings,
  };
  if (error instanceof InterruptedError || (error === undefined && options.stop.aborted)) {
    return { ...base, status: 'interrupted', exitCode: ExitCode.interrupted };
  }
  if (error !== undefined) {
    if (!(error instanceof MigrationError)) throw error;
    const { code, message, hint } = error;
    return { ...base, status: 'failed', exitCode: error.exitCode, error: { code, message, hint } };
  }
  return totals.rejected > 0 || totals.fileProblems > 0
    ? { ...base, status: 'completed-with-rejects', exitCode: ExitCode.rejected }
    : { ...base, status: 'completed', exitCode: ExitCode.ok };
}
