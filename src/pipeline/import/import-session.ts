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
import { RejectsWriter, rotateRejects } from '../../checkpoint/rejects-file.js';
import { IdLog } from '../../checkpoint/id-log.js';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import { runImport } from './run-import.js';
import { BatchSender } from './send-batch.js';
import { suspectDuplicateProblem } from '../../rules/export-index.js';
import type { ReplaySource } from './replay-pass.js';
import type { ExportFolder } from '../../media/media-sources.js';
import { readProxySettings } from '../../http/proxy-env.js';
import { startMediaPass } from './media-start.js';
import { openRunLog, type RunLog } from '../run-log.js';
import { loggedEvents, sampleRun, TrafficStats, type RunSampler } from '../run-samples.js';
import { endpointOptionsOf } from '../../http/service-endpoint.js';

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
  /** `replay`: the rejects file's edited records, sent after each phase's export records. */
  replay?: ReplaySource;
  /** A preset's export folder, for `media.exportFiles`. */
  exportFolder?: ExportFolder;
  /** The command the run log names (default `import`). */
  command?: string;
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
  const lock = new CheckpointLock(`${config.checkpoint}.lock`);
  await lock.acquire();
  let checkpoint: CheckpointStore;
  try {
    checkpoint = await CheckpointStore.open(
      config.checkpoint,
      { target: { baseUrl: config.baseUrl, appId: config.appId }, sourcesHash: hashSources(options.sourcesIdentity) },
      options.fresh,
      config.checkpointIntervalMs,
    );
  } catch (err) {
    await lock.release();
    throw err;
  }
  // Opened under the lock, once the checkpoint is this migration's: a run refused as another
  // migration's writes nothing here, and two runs never interleave their lines.
  const runLog = await openRunLog(config.checkpoint, {
    command: options.command ?? 'import',
    config,
    fresh: options.fresh,
  });
  let sampler: RunSampler | undefined;
  const logged = loggedEvents(runLog, shown, () => sampler?.figures());
  const events: RunEvents = {
    ...logged,
    warning: (message) => {
      warnings.push(message);
      shown.warning(message);
    },
  };
  if (runLog.problem) events.warning(runLog.problem);
  const onStop = () => runLog.interrupted(String(options.stop.reason ?? 'stop'));
  options.stop.addEventListener('abort', onStop, { once: true });
  const traffic = new TrafficStats();
  let limiter: RateLimiter | undefined;
  let summary: ImportSummary | undefined;
  let thrown: unknown;
  let client: ImportClient | undefined;
  let rejects: RejectsWriter | undefined;
  let idLog: IdLog | undefined;
  let media: Awaited<ReturnType<typeof startMediaPass>>;
  const counts: RunCounts = {};
  try {
    const aside = options.fresh ? await rotateRejects(config.rejects) : undefined;
    if (aside) events.info(`--fresh: a new rejects file; the previous one is now ${aside}`);
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
    client = new ImportClient(endpointOptionsOf(config, options.proxy));
    // A fatal failure ends the sends still retrying too: their batches are read again on resume.
    const failed = new AbortController();
    const sender = new BatchSender({
      client,
      limiter: (limiter = new RateLimiter(config.requestsPerMinute, systemClock)),
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
        answered: (_entity, status, latencyMs) => traffic.answered(status, latencyMs),
      },
      judgeAlreadyExists: (record) => {
        if (!record.duplicateSuspect) return undefined;
        if (record.sameContentSuspect) return 'duplicate';
        const problem = suspectDuplicateProblem(record);
        return { code: problem.rule, message: problem.message };
      },
    });
    const resumed = checkpoint.resumed;
    if (resumed) runLog.event('resume', { checkpointUpdatedAt: checkpoint.snapshot.updatedAt });
    const rate = () => limiter?.currentRate;
    sampler = sampleRun(runLog, counts, traffic, rate, logged.current);
    let error: unknown;
    try {
      media = await startMediaPass(options, options.proxy ?? readProxySettings(process.env), events);
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
          replay: options.replay,
          media: media?.hook,
        },
        counts,
      );
    } catch (err) {
      error = err;
    }
    summary = summarise(options, counts, started, resumed, error, warnings);
    if (media) summary = { ...summary, media: media.session.summary() };
    return summary;
  } catch (err) {
    thrown = err;
    throw err;
  } finally {
    sampler?.stop();
    options.stop.removeEventListener('abort', onStop);
    await media?.close();
    if (options.hardStop.aborted) await client?.destroy().catch(() => undefined);
    else await client?.close().catch(() => undefined);
    // The checkpoint first: its last write puts the rejects file's lines on disk before itself.
    await checkpoint.flush().catch(() => undefined);
    await rejects?.close().catch(() => undefined);
    await idLog?.close().catch(() => undefined);
    endRunLog(runLog, summary, rejects, thrown);
    await lock.release();
  }
}

/** The run's last line: its --json summary as it is, and the rejects it wrote by code. */
function endRunLog(
  runLog: RunLog,
  summary: ImportSummary | undefined,
  rejects?: RejectsWriter,
  thrown?: unknown,
): void {
  // No summary: an error the CLI reports (a rejects file that cannot be written, a bug) ended the run.
  if (!summary) {
    const { code, message } = thrown instanceof MigrationError ? thrown : { code: 'UNEXPECTED', message: undefined };
    runLog.end('failed', { error: { code, message } });
  } else
    runLog.end(summary.status, { exitCode: summary.exitCode, summary, rejectsByCode: rejects?.writtenByCode ?? {} });
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
