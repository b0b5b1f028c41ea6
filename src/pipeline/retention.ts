/**
 * The service keeps messages for `retentionDays` (the vendor's default: 6 months): older ones are
 * accepted by the import and then never shown (read-api.md "Retention"). import and validate say so
 * once, before anything is sent; verify reports them apart from missing ones.
 */
import type { EntityPlan } from '../sources/plan.js';
import { readInputBatches } from '../sources/plan.js';
import { ItemSlots, RECORD } from './item-slots.js';
import { createMapper, mapperOptionsFor } from './map/map.js';

/** The UNIX second before which messages are beyond the window; undefined when it is unlimited (0). */
export function retentionCutoff(nowSec: number, retentionDays: number): number | undefined {
  return retentionDays > 0 ? nowSec - retentionDays * 86_400 : undefined;
}

/** Whether a mapped message's sentAt lies before the cutoff. */
export const isBeyondRetention = (sentAt: unknown, cutoffSec: number | undefined): boolean =>
  cutoffSec !== undefined && typeof sentAt === 'number' && sentAt < cutoffSec;

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
        if (slots.kindOf(item) === RECORD && isBeyondRetention(slots.record!.payload.sentAt, options.cutoffSec)) count++;
      }
    }
  }
  return count;
}

/** The one notice import and validate give; undefined when no message is that old. */
export function retentionNotice(count: number, retentionDays: number): string | undefined {
  if (count === 0) return undefined;
  const what = count === 1 ? '1 message is' : `${count} messages are`;
  return (
    `${what} older than the service's ${retentionDays}-day retention window (retentionDays): the service ` +
    'accepts them but never shows them. Ask the vendor to extend the app\'s message retention before ' +
    'importing, or leave them out with --since <date>; set retentionDays to your app\'s window (0: unlimited)'
  );
}
