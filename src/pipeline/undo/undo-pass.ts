import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { CheckpointError, InterruptedError } from '../../errors.js';
import type { EntityName } from '../../entities/types.js';
import { STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import type { DeleteResult } from '../../http/rest-client.js';
import type { UndoPlan } from './undo-steps.js';

/** The undo's progress beside the checkpoint: a crash resumes at `done`; deletes are safe to repeat. */
export interface UndoState {
  tool: 'chat-migrate-undo';
  version: 1;
  target: { baseUrl: string; appId?: string };
  /** Steps in the plan: a plan of another length is another undo, started over. */
  total: number;
  /** Every step before this one was answered. */
  done: number;
  deleted: Record<EntityName, number>;
  /** Gone before this undo asked (deleted by hand, or by an undo that crashed before saving). */
  notFound: number;
  refused: Array<{ label: string; code: string }>;
}

export interface UndoRun {
  plan: UndoPlan;
  client: { delete(path: string, body?: object): Promise<DeleteResult> };
  statePath: string;
  target: UndoState['target'];
  concurrency: number;
  stop: AbortSignal;
  progress(state: Readonly<UndoState>): void;
}

async function loadState(run: UndoRun): Promise<UndoState> {
  const fresh: UndoState = {
    tool: 'chat-migrate-undo',
    version: 1,
    target: run.target,
    total: run.plan.steps.length,
    done: 0,
    deleted: { users: 0, groups: 0, members: 0, messages: 0 },
    notFound: 0,
    refused: [],
  };
  const text = await readFile(run.statePath, 'utf8').catch(() => undefined);
  if (text === undefined) return fresh;
  try {
    const saved = JSON.parse(text) as UndoState;
    const same =
      saved.tool === fresh.tool && saved.total === fresh.total && saved.target.baseUrl === run.target.baseUrl;
    return same && Number.isInteger(saved.done) ? saved : fresh;
  } catch {
    // A state file cut short: the deletes it covered answer not-found when asked again.
    return fresh;
  }
}

export async function saveUndoState(path: string, state: UndoState): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(temp, JSON.stringify(state), { mode: STATE_FILE_MODE });
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new CheckpointError('UNDO_STATE_UNWRITABLE', `cannot write the undo state ${path}: ${String(err)}`);
  }
}

/**
 * Sends the plan's deletes in order, `concurrency` at a time, saving the progress after each group:
 * a crash or Ctrl+C resumes after the last saved group. Messages go before members, members before
 * groups, groups before users: a group of steps never spans two entities, so nothing is deleted
 * before what depends on it.
 */
export async function runUndo(run: UndoRun): Promise<UndoState> {
  const state = await loadState(run);
  const steps = run.plan.steps;
  while (state.done < steps.length) {
    if (run.stop.aborted) {
      await saveUndoState(run.statePath, state);
      throw new InterruptedError();
    }
    const entity = steps[state.done].entity;
    let end = state.done;
    while (end < steps.length && end - state.done < run.concurrency && steps[end].entity === entity) end++;
    const group = steps.slice(state.done, end);
    const results = await Promise.all(group.map((s) => run.client.delete(s.path, s.body)));
    results.forEach((result, i) => {
      if (result.outcome === 'refused') state.refused.push({ label: group[i].label, code: result.code });
      else if (result.outcome === 'deleted') state.deleted[group[i].entity]++;
      else state.notFound++;
    });
    state.done = end;
    await saveUndoState(run.statePath, state);
    run.progress(state);
  }
  return state;
}
