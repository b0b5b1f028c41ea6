import { rename, rm } from 'node:fs/promises';
import { CheckpointLock } from '../../checkpoint/lock.js';
import { rotateRejects } from '../../checkpoint/rejects-file.js';
import { readCheckpoint, type CheckpointData } from '../../checkpoint/store.js';
import type { MigrateConfig } from '../../config/schema.js';
import { CheckpointError } from '../../errors.js';
import { RestClient } from '../../http/rest-client.js';
import { RateLimiter, systemClock } from '../../http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../http/retry-policy.js';
import { idLogOf, readCreatedRecords } from './created-records.js';
import { runUndo, type UndoState } from './run-undo.js';
import { planUndo, type UndoPlan } from './undo-steps.js';
import { endpointOptionsOf } from '../../http/service-endpoint.js';
import { DEFAULT_REST_REQUESTS_PER_MINUTE } from '../../config/keys.js';

/** The undo's progress file: beside the checkpoint, named after it. */
export const undoStatePathOf = (checkpoint: string): string =>
  `${checkpoint.endsWith('.json') ? checkpoint.slice(0, -5) : checkpoint}.undo.json`;

export interface PreparedUndo {
  checkpoint: CheckpointData;
  plan: UndoPlan;
  idLog: string;
}

/** What the checkpoint and its id log say this migration created, as the deletes that take it back. */
export async function prepareUndo(config: MigrateConfig): Promise<PreparedUndo> {
  const checkpoint = await readCheckpoint(config.checkpoint);
  if (checkpoint === undefined) {
    throw new CheckpointError('UNDO_NO_CHECKPOINT', `no checkpoint at ${config.checkpoint}: nothing to undo`, {
      hint: 'undo takes back what an import into this target recorded; give its --checkpoint',
    });
  }
  if (checkpoint.target.baseUrl !== config.baseUrl || (checkpoint.target.appId ?? '') !== (config.appId ?? '')) {
    const other = checkpoint.target.baseUrl;
    throw new CheckpointError(
      'CHECKPOINT_OTHER_TARGET',
      `the checkpoint ${config.checkpoint} belongs to a migration into ${other}, not ${config.baseUrl}`,
    );
  }
  const idLog = idLogOf(checkpoint, config.checkpoint);
  const plan = planUndo(await readCreatedRecords(idLog));
  return { checkpoint, plan, idLog };
}

export interface UndoSessionOptions {
  config: MigrateConfig;
  prepared: PreparedUndo;
  stop: AbortSignal;
  hardStop: AbortSignal;
  progress(state: Readonly<UndoState>): void;
  onRetry?(reason: string, attempt: number, delayMs: number): void;
}

export interface UndoOutcome {
  state: UndoState;
  /** Where the migration's files went once every delete was answered (the next import starts over). */
  setAside: string[];
}

/**
 * Runs the deletes under the checkpoint's lock (no import may run meanwhile), resumably. Once every
 * delete is answered and none refused, the checkpoint, its id log and the rejects file are renamed
 * aside (`<name>.undone-<time>`): the next `import` finds no checkpoint and starts over.
 */
export async function runUndoSession(options: UndoSessionOptions): Promise<UndoOutcome> {
  const { config, prepared } = options;
  const lock = new CheckpointLock(`${config.checkpoint}.lock`);
  await lock.acquire();
  // Deletes are standard operations (read-api.md): the REST budget, not the import's.
  const client = new RestClient({
    ...endpointOptionsOf(config),
    limiter: new RateLimiter(config.restRequestsPerMinute, systemClock, DEFAULT_REST_REQUESTS_PER_MINUTE),
    policy: { ...DEFAULT_RETRY_POLICY, retries: config.retries },
    clock: systemClock,
    stop: options.hardStop,
    saved: 'the undo progress is saved',
    events: { retrying: (n) => options.onRetry?.(n.reason, n.attempt, n.delayMs) },
  });
  const statePath = undoStatePathOf(config.checkpoint);
  try {
    const state = await runUndo({
      plan: prepared.plan,
      client,
      statePath,
      target: { baseUrl: config.baseUrl, appId: config.appId },
      concurrency: config.concurrency,
      stop: options.stop,
      progress: options.progress,
    });
    if (state.refused.length > 0) return { state, setAside: [] };
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const setAside: string[] = [];
    for (const file of [config.checkpoint, prepared.idLog]) {
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
    return { state, setAside };
  } finally {
    await client.close().catch(() => undefined);
    await lock.release();
  }
}
