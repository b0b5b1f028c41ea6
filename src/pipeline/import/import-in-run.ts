import { rename } from 'node:fs/promises';
import { ExitCode, InterruptedError, MigrationError } from '../../errors.js';
import { allMessagesSkipped, sumCounts, type ImportSummary } from './summary.js';
import type { RunCounts } from '../events.js';
import type { EntityPlan } from '../../sources/plan.js';
import { RejectsWriter, rotateRejects } from '../../checkpoint/rejects-file.js';
import { IdLog } from '../../checkpoint/id-log.js';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import { runImport } from './import-pass.js';
import { BatchSender } from './send-batch.js';
import { suspectDuplicateProblem } from '../../rules/export-index.js';
import type { ReplaySource } from './replay-pass.js';
import type { ExportFolder } from '../../media/media-sources.js';
import { readProxySettings, type ProxySettings } from '../../http/proxy-env.js';
import { startMediaPass } from './media-start.js';
import type { WithoutMissing } from './media-pass.js';
import type { Run, RunEnd } from '../run/run.js';
import { ledgerView } from '../../checkpoint/ledger.js';
import { BEYOND_RETENTION } from '../../entities/types.js';
import { isRetentionRefusal, retentionCutoff, retentionOutcome, retentionRefusalMessage } from '../retention.js';

export interface ImportInRunOptions {
  plans: EntityPlan[];
  /** A preset's id map written aside: put in place once this run holds its checkpoint, before sending. */
  idMap?: { commit(): Promise<void> };
  fresh: boolean;
  sinceSec?: number;
  /** Count records first so progress can show a total and ETA. */
  estimateTotals?: boolean;
  /** Default: the environment's (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
  /** `replay`: the rejects file's edited records, sent after each phase's export records. */
  replay?: ReplaySource;
  /** A preset's export folder, for `media.exportFiles`. */
  exportFolder?: ExportFolder;
  /** `replay --without-missing-files`: messages held only for missing files go in without them. */
  withoutMissing?: WithoutMissing;
  /**
   * The user set retentionDays: messages it leaves out are their decision. Otherwise a finished run
   * that left some out ends with exit 3 (retention.ts). Default: set (sync, replay and demo).
   */
  retentionChosen?: boolean;
}

/**
 * One import inside its run (run.ts holds the lock and the ledger): opens the rejects file and the id
 * log in step with the ledger (both must be writable before anything is sent), puts the preset's id
 * map in place, runs the phases with the media pass beside them, and closes what it opened.
 */
export async function importInRun(run: Run, options: ImportInRunOptions): Promise<ImportSummary> {
  const { config, events } = run;
  const checkpoint = run.ledger!;
  const started = Date.now();
  let rejects: RejectsWriter | undefined;
  let idLog: IdLog | undefined;
  let media: Awaited<ReturnType<typeof startMediaPass>>;
  const counts: RunCounts = {};
  const failed = new AbortController();
  try {
    if (options.fresh) {
      // A new migration: the earlier one's rejects and created ids must not be taken for this one's.
      const aside = await rotateRejects(config.rejects);
      if (aside) events.info(`--fresh: a new rejects file; the previous one is now ${aside}`);
      const idLogAside = await setAside(idLogPathOf(config.checkpoint));
      if (idLogAside) events.info(`--fresh: a new id log; the previous one is now ${idLogAside}`);
    }
    rejects = await RejectsWriter.open(config.rejects, checkpoint.snapshot.rejects);
    idLog = await IdLog.open(idLogPathOf(config.checkpoint), checkpoint.snapshot.imported);
    // Before the first save, so that every checkpoint of this run carries both files' marks.
    checkpoint.keepInStep(rejects);
    checkpoint.keepInStep(idLog.companion, 'imported');
    checkpoint.plan(options.plans.map((p) => p.entity.name));
    // From here the service may change: a verify made before no longer speaks for it.
    checkpoint.markChanged();
    await checkpoint.save();
    // Here the checkpoint is locked, writable and this migration's: the id map becomes this run's.
    await options.idMap?.commit();
    sayResumedRejects(run, rejects);
    const requests = run.requests();
    const nowSec = Math.floor(Date.now() / 1000);
    const retentionCutoffSec = retentionCutoff(nowSec, config.retentionDays);
    const limiter = run.clients.importLimiter;
    const sender = new BatchSender({
      client: await run.clients.importClient(),
      limiter,
      policy: run.clients.policy,
      clock: run.clients.clock,
      hardStop: run.hardStop,
      // A fatal failure ends the sends still retrying too: their batches are read again on resume.
      abandon: failed.signal,
      events: {
        // Into the phase's counts as they happen, so a batch that fails in the end still counts its tries.
        requestStarted: (entity, isRetry) => {
          requests.requestStarted(isRetry);
          const phase = counts[entity];
          if (!phase) return;
          phase.requests++;
          if (isRetry) phase.retries++;
        },
        retrying: (entity, notice) => events.retrying(entity, notice),
        answered: (_entity, status, latencyMs) => requests.answered(status, latencyMs),
      },
      writeAhead: (entity, ids) => idLog!.sending(entity, ids),
      namesOwnCause: (entity, error) => entity === 'messages' && isRetentionRefusal(error),
      rejectAlone: (record, status, error) =>
        status >= 500 && record.entity === 'messages' && isRetentionRefusal(error)
          ? {
              code: BEYOND_RETENTION,
              message: retentionRefusalMessage(record.payload, status, error?.message, config.retentionDays),
            }
          : undefined,
      judgeAlreadyExists: (record) => {
        if (!record.duplicateSuspect) return undefined;
        if (record.sameContentSuspect) return 'duplicate';
        const problem = suspectDuplicateProblem(record);
        return { code: problem.rule, message: problem.message };
      },
    });
    const resumed = checkpoint.resumed;
    if (resumed) run.log.event('resume', { checkpointUpdatedAt: checkpoint.snapshot.updatedAt });
    run.sample(counts, () => limiter.currentRate);
    let error: unknown;
    try {
      const { plans, exportFolder, sinceSec, withoutMissing } = options;
      const { stop, hardStop, env, cwd, clock } = run;
      const mediaOptions = {
        config,
        plans,
        exportFolder,
        sinceSec,
        retentionCutoffSec,
        stop,
        hardStop,
        withoutMissing,
        env,
        cwd,
        clock,
        checkpoint,
      };
      media = await startMediaPass(mediaOptions, options.proxy ?? readProxySettings(env), events);
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
          retentionCutoffSec,
          nowSec,
          stop: run.stop,
          abandonSends: () => failed.abort(),
          estimateTotals: options.estimateTotals,
          replay: options.replay,
          media: media?.hook,
          clock,
        },
        counts,
      );
    } catch (err) {
      error = err;
    }
    let summary = summarise(run, counts, started, resumed, error);
    if (media) summary = { ...summary, media: media.session.summary() };
    // The ledger's word on the whole migration, this run's outcome included (the run ends it the same way).
    checkpoint.recordRun(run.command, summary.status);
    const view = ledgerView(checkpoint.snapshot);
    const { state, statusLine } = view;
    const migration = {
      state,
      statusLine,
      mediaNotCarried: view.media.notCarried,
      mediaNotCarriedBy: view.media.byReason,
    };
    const old = view.total.skippedBy[BEYOND_RETENTION] ?? 0;
    const chosen = options.retentionChosen ?? true;
    const retention = retentionOutcome(old, config.retentionDays, nowSec, chosen);
    // Left out by a window nobody set, or nothing read at all: finished, but not a success.
    const empty = summary.status === 'completed' && summary.totals.read === 0;
    // Messages read and every one skipped: nothing of the conversations is in, whatever the ledger says.
    const skippedAll = summary.status === 'completed' ? allMessagesSkipped(summary.entities) : undefined;
    if (((retention && !chosen) || empty || skippedAll) && summary.exitCode === ExitCode.ok)
      summary = { ...summary, exitCode: ExitCode.rejected };
    if (skippedAll) summary = { ...summary, allMessagesSkipped: skippedAll };
    return { ...summary, migration, ...(retention ? { retention } : {}) };
  } catch (err) {
    failed.abort();
    throw err;
  } finally {
    await media?.close();
    // The checkpoint first: its last write puts the rejects file's lines on disk before itself.
    await checkpoint.flush().catch(() => undefined);
    await rejects?.close().catch(() => undefined);
    await idLog?.close().catch(() => undefined);
    // The rejects this run wrote, by code, on its run log's last line (the report's runs).
    if (rejects) run.note({ rejectsByCode: rejects.writtenByCode });
  }
}

/** The run log's end line of an import: its --json summary as it is. */
export function importEnd(summary: ImportSummary): RunEnd {
  return { status: summary.status, fields: { exitCode: summary.exitCode, summary } };
}

/** Renames a state file aside (`<file>.<time>`); undefined when there was none. */
async function setAside(file: string): Promise<string | undefined> {
  const aside = `${file}.${new Date().toISOString().replace(/[:.]/g, '-')}`;
  return rename(file, aside).then(
    () => aside,
    () => undefined,
  );
}

function sayResumedRejects(run: Run, rejects: RejectsWriter): void {
  const { dropped, leftWhole } = rejects.resumed;
  const path = run.config.rejects;
  if (dropped > 0) {
    const lines = dropped === 1 ? '1 line' : `${dropped} lines`;
    run.events.info(
      `${path}: took out ${lines} the interrupted run wrote for records it had not acknowledged; ` +
        'they are read and checked again',
    );
  }
  if (leftWhole)
    run.events.warning(
      `${path} is left as it is (${leftWhole}): records the interrupted run rejected may be listed again`,
    );
}

function summarise(run: Run, entities: RunCounts, started: number, resumed: boolean, error: unknown): ImportSummary {
  const totals = sumCounts(entities);
  const { config, warnings } = run;
  const base = {
    entities,
    totals,
    elapsedMs: Date.now() - started,
    checkpoint: config.checkpoint,
    rejects: config.rejects,
    resumed,
    warnings,
  };
  if (error instanceof InterruptedError || (error === undefined && run.stop.aborted)) {
    return { ...base, status: 'interrupted', exitCode: ExitCode.interrupted };
  }
  if (error !== undefined) {
    if (!(error instanceof MigrationError)) throw error;
    const { code, message, hint } = error;
    return { ...base, status: 'failed', exitCode: error.exitCode, error: { code, message, hint } };
  }
  // A record held back by its parent is not in either: the run is not complete until it is.
  return totals.rejected > 0 || totals.fileProblems > 0 || totals.blocked > 0
    ? { ...base, status: 'completed-with-rejects', exitCode: ExitCode.rejected }
    : { ...base, status: 'completed', exitCode: ExitCode.ok };
}
