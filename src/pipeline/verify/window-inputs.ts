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

export async function inputsOfWindow(
  plans: EntityPlan[],
  window: { sinceSec?: number; checkpoint?: CheckpointStore },
): Promise<WindowInputs> {
  const { sinceSec, checkpoint } = window;
  if (sinceSec === undefined || checkpoint === undefined) return { plans, notRead: 0 };
  let notRead = 0;
  const read: EntityPlan[] = [];
  for (const plan of plans) {
    const inputs = [];
    for (const input of plan.inputs) {
      // Users, groups and members never count as unchanged: they are read whole, as import reads them.
      const newest = await newestOfUnchanged(checkpoint, plan.entity.name, input);
      if (newest !== undefined && newest < sinceSec) notRead++;
      else inputs.push(input);
    }
    read.push(inputs.length === plan.inputs.length ? plan : { ...plan, inputs });
  }
  return { plans: read, notRead };
}
