import { rename, rm } from 'node:fs/promises';
import { rotateRejects } from '../../checkpoint/rejects-file.js';
import { readCheckpoint, type CheckpointData } from '../../checkpoint/store.js';
import { assertSameMigration } from '../../checkpoint/checkpoint-file.js';
import type { MigrateConfig } from '../../config/schema.js';
import type { EntityName } from '../../entities/types.js';
import { CheckpointError } from '../../errors.js';
import { emptyCounts, type EntityCounts } from '../events.js';
import type { Run, RunEnd } from '../run/run.js';
import { idLogOf, idLogsOf, readCreatedRecords, type LoggedRecords } from './created-records.js';
import { runUndo, type UndoState } from './undo-pass.js';
import { planUndo, type UndoPlan } from './undo-steps.js';
import type { UndoKept } from '../../checkpoint/ledger-marks.js';

/** The undo's progress file: beside the checkpoint, named after it. */
export const undoStatePathOf = (checkpoint: string): string =>
  `${checkpoint.endsWith('.json') ? checkpoint.slice(0, -5) : checkpoint}.undo.json`;

export interface PreparedUndo {
  checkpoint: CheckpointData;
  plan: UndoPlan;
  /** Every id log of the migration, oldest first (idLogsOf). */
  idLogs: string[];
  logged: LoggedRecords;
}

/** What the checkpoint and its id log say this migration created, as the deletes that take it back. */
export async function prepareUndo(config: MigrateConfig): Promise<PreparedUndo> {
  const checkpoint = await readCheckpoint(config.checkpoint);
  if (checkpoint === undefined) {
    throw new CheckpointError('UNDO_NO_CHECKPOINT', `no checkpoint at ${config.checkpoint}: nothing to undo`, {
      hint: 'undo takes back what an import into this target recorded; give its --checkpoint',
    });
  }
  const target = { baseUrl: config.baseUrl, appId: config.appId };
  assertSameMigration(checkpoint, { target, sourcesHash: checkpoint.sourcesHash }, config.checkpoint, false);
  const idLogs = await idLogsOf(idLogOf(checkpoint, config.checkpoint));
  const logged = await readCreatedRecords(idLogs);
  return { checkpoint, plan: planUndo(logged.created), idLogs, logged };
}

export interface UndoOutcome {
  state: UndoState;
  /** Where the migration's files went once every delete was answered (the next import starts over). */
  setAside: string[];
  kept: UndoKept;
}

/**
 * Runs the deletes inside the run (its lock: no import may run meanwhile; its REST client and limiter),
 * resumably, with a phase per entity for the progress shown. Once every delete is answered and none
 * refused, the checkpoint, its id log and the rejects file are renamed aside (`<name>.undone-<time>`)
 * and the ledger starts over with what was undone: the next `import` sends everything again.
 */
export async function undoInRun(run: Run, prepared: PreparedUndo): Promise<UndoOutcome> {
  const { config } = run;
  const requests = run.requests('undo');
  // The service is about to change: an earlier verify no longer speaks for it.
  run.ledger?.markChanged();
  let current: EntityName = prepared.plan.steps[0]?.entity ?? 'messages';
  // Deletes are standard operations (docs/service-reads.md): the run's REST limiter, not the import's.
  const client = await run.clients.restClient({
    stop: run.hardStop,
    saved: 'the undo progress is saved',
    events: {
      requestStarted: (isRetry) => requests.requestStarted(isRetry),
      answered: (status, latencyMs) => requests.answered(status, latencyMs),
      retrying: (notice) => run.events.retrying(current, notice),
    },
  });
  // Messages the logs have no service id for (an already-exists answer carries none): found by muid.
  let plan = prepared.plan;
  const wanted = new Set(plan.withoutServiceId.map((id) => id.toLowerCase()));
  if (wanted.size > 0) {
    const found = new Map<string, string>();
    for await (const page of client.cursor('messages')) {
      for (const item of page) {
        const muid = typeof item.muid === 'string' ? item.muid.toLowerCase() : undefined;
        if (muid !== undefined && wanted.has(muid)) found.set(muid, String(item.id));
      }
    }
    plan = planUndo(prepared.logged.created, found);
  }
  const steps = plan.steps;
  const statePath = undoStatePathOf(config.checkpoint);
  // A phase per entity, so the progress shown has a total, a rate and an ETA: deleted counts as
  // `imported`, gone already as `alreadyPresent`, refused as `rejected` (UNDO_TERMS).
  const counts: Partial<Record<EntityName, EntityCounts>> = {};
  run.sample(counts, () => run.clients.restLimiter.currentRate);
  let notFoundBefore = 0;
  let phaseStarted = Date.now();
  const state = await runUndo({
    plan,
    client,
    statePath,
    target: { baseUrl: config.baseUrl, appId: config.appId },
    concurrency: config.concurrency,
    stop: run.stop,
    progress: (s) => {
      const entity = steps[s.done - 1].entity;
      let c = counts[entity];
      if (c === undefined) {
        current = entity;
        phaseStarted = Date.now();
        c = counts[entity] = emptyCounts();
        run.events.phaseStarted(entity, plan.counts[entity]);
      }
      c.imported = s.deleted[entity];
      c.alreadyPresent += s.notFound - notFoundBefore;
      notFoundBefore = s.notFound;
      c.rejected = s.refused.filter((r) => r.label.startsWith(entity.slice(0, -1))).length;
      // Every answered delete is a record of the phase handled: the progress's done count.
      c.read = c.imported + c.alreadyPresent + c.rejected;
      c.elapsedMs = Date.now() - phaseStarted;
      run.ledger?.recordUndoing(s.done, s.total);
      run.ledger?.saveSoon().catch(() => undefined);
      run.events.progress(entity, c);
      if (steps[s.done]?.entity !== entity) run.events.phaseFinished(entity, c, true);
    },
  });
  const kept = keptOf(prepared, plan);
  if (state.refused.length > 0) return { state, setAside: [], kept };
  // No write of the progress may land after the checkpoint is renamed aside.
  await run.ledger?.save();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const setAside: string[] = [];
  for (const file of [config.checkpoint, ...prepared.idLogs]) {
    const aside = `${file}.undone-${stamp}`;
    if (
      await rename(file, aside).then(
        () => true,
        () => false,
      )
    )
      setAside.push(aside);
  }
  const rejects = await rotateRejects(config.rejects);
  if (rejects !== undefined) setAside.push(rejects);
  await rm(statePath, { force: true });
  const { deleted, notFound } = state;
  const mark = { at: new Date().toISOString(), deleted, notFound, setAside };
  run.ledger?.startOver(kept.existing + kept.unfound > 0 ? { ...mark, kept } : mark);
  return { state, setAside, kept };
}

/** What the undo leaves on the service, and why (UndoMark.kept). */
export function keptOf(prepared: PreparedUndo, plan: UndoPlan): UndoKept {
  return { existing: prepared.logged.existing, unfound: plan.withoutServiceId.length };
}

/** The run log's end line of an undo: what was deleted. */
export function undoEnd({ state, setAside, kept }: UndoOutcome): RunEnd {
  const refused = state.refused.length;
  const { deleted, notFound } = state;
  const fields = { exitCode: refused > 0 ? 3 : 0, deleted, notFound, refused, kept, setAside };
  return { status: refused > 0 ? 'completed-with-refusals' : 'completed', fields };
}
