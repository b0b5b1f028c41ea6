import type { EntityName, MappedRecord } from '../../entities/types.js';
import { InterruptedError } from '../../errors.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { ItemSlots, RECORD } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import type { Compared } from './compare-parts.js';
import { differingFields } from './compared-fields.js';
import { DIFFERENT } from './expected-index.js';
import { flaggedInOrder } from './verify-store.js';
import { type EntityVerdict, LISTED_AT_MOST } from './verify-result.js';

export interface FlaggedOptions {
  plans: EntityPlan[];
  /** Per entity, the comparison: its flagged records and the service's values of the first differing ones. */
  compared: Partial<Record<EntityName, Compared>>;
  verdicts: Partial<Record<EntityName, EntityVerdict>>;
  importSoftDeleted: boolean;
  sinceSec?: number;
  signal: AbortSignal;
  /** Each missing record, mapped as the import maps it: `verify --repair` sends it again. */
  onMissing?(record: MappedRecord): Promise<void>;
}

/**
 * The second reading of the export, only of entities where something is missing or different: the
 * comparison holds no ids, so this names them, with file:line. Flagged records come by their place
 * among the records (the first reading counted them the same way), so nothing is looked up by id.
 */
export async function listFlagged(options: FlaggedOptions): Promise<void> {
  for (const plan of options.plans) {
    const name = plan.entity.name;
    const compared = options.compared[name];
    const verdict = options.verdicts[name];
    const flagged = compared !== undefined && verdict !== undefined && verdict.missing + verdict.different > 0;
    if (!flagged) continue;
    const pending = flaggedInOrder(compared.flaggedFiles);
    let next = pending.next();
    let ord = -1;
    for (const input of plan.inputs) {
      const slots = new ItemSlots(createMapper(mapperOptionsFor(plan.entity, plan.source, options)));
      for await (const items of readInputBatches(input, { signal: options.signal, entity: name })) {
        for (const item of items) {
          if (options.signal.aborted) throw new InterruptedError();
          if (slots.kindOf(item) !== RECORD) continue;
          ord++;
          if (next.done || next.value.ord !== ord) continue;
          const { state } = next.value;
          next = pending.next();
          const record = slots.record!;
          const located = { id: record.id, file: record.file, line: record.line };
          if (state !== DIFFERENT) {
            if (verdict.missingRecords.length < LISTED_AT_MOST) verdict.missingRecords.push(located);
            await options.onMissing?.(record);
          } else if (verdict.differentRecords.length < LISTED_AT_MOST) {
            const service = compared.differing.get(ord);
            const fields = service ? differingFields(name, record.payload, service, compared.compared) : [];
            verdict.differentRecords.push({ ...located, fields });
          }
        }
      }
      if (next.done) break;
    }
  }
}
