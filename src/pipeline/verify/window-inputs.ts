/**
 * Which inputs a verify with a window (`--since`, a sync round) reads. A message file that import
 * does not read again (unchanged since a reading to its end, every slot acknowledged) and whose newest
 * message is older than the window holds only messages the mapping skips as before it: reading it
 * would count nothing but those skips. Both readings of the export (read-expected.ts, list-flagged.ts)
 * take the plans this returns, so they count records by the same places.
 */
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { EntityPlan } from '../../sources/plan.js';
import { newestOfUnchanged } from '../unchanged-file.js';

export interface WindowInputs {
  plans: EntityPlan[];
  /** Message files left unread: unchanged, and older than the window. */
  notRead: number;
}

/**
 * What the last good round of `sync` verified: every message up to `throughSec` of the files read before
 * this round began (`readBeforeMs`). Such a file, unchanged since, has nothing a round must look at
 * again, however recent its newest message: late replies come in files of their own.
 */
export interface VerifiedBefore {
  throughSec: number;
  readBeforeMs: number;
}

export async function inputsOfWindow(
  plans: EntityPlan[],
  window: { sinceSec?: number; checkpoint?: CheckpointStore; verifiedBefore?: VerifiedBefore },
): Promise<WindowInputs> {
  const { sinceSec, checkpoint, verifiedBefore: before } = window;
  if (sinceSec === undefined || checkpoint === undefined) return { plans, notRead: 0 };
  let notRead = 0;
  const read: EntityPlan[] = [];
  for (const plan of plans) {
    const inputs = [];
    for (const input of plan.inputs) {
      // Users, groups and members never count as unchanged: they are read whole, as import reads them.
      const file = await newestOfUnchanged(checkpoint, plan.entity.name, input);
      const old = file !== undefined && file.newest < sinceSec;
      const verified =
        file !== undefined &&
        before !== undefined &&
        file.readAt !== undefined &&
        file.readAt < before.readBeforeMs &&
        file.newest <= before.throughSec;
      if (old || verified) notRead++;
      else inputs.push(input);
    }
    read.push(inputs.length === plan.inputs.length ? plan : { ...plan, inputs });
  }
  return { plans: read, notRead };
}
