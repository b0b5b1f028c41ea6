import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { ItemSlots, RECORD } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { isBeyondRetention } from '../retention.js';

/**
 * Counts the messages the import would send that are older than the window: the messages read and
 * mapped as import maps them (deleted ones and those before --since are skipped there), unchecked.
 */
export async function countBeyondRetention(
  plans: EntityPlan[],
  options: { cutoffSec: number; importSoftDeleted: boolean; sinceSec?: number; signal?: AbortSignal },
): Promise<number> {
  const plan = plans.find((p) => p.entity.name === 'messages');
  if (plan === undefined) return 0;
  let count = 0;
  for (const input of plan.inputs) {
    const slots = new ItemSlots(createMapper(mapperOptionsFor(plan.entity, plan.source, options)));
    for await (const items of readInputBatches(input, { signal: options.signal, entity: 'messages' })) {
      for (const item of items) {
        if (slots.kindOf(item) === RECORD && isBeyondRetention(slots.record!.payload.sentAt, options.cutoffSec))
          count++;
      }
    }
  }
  return count;
}
