import type { EntityName, MappedRecord } from '../../entities/types.js';
import { InterruptedError } from '../../errors.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { ItemSlots, RECORD } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { differingFields } from './compared-fields.js';
import { DIFFERENT, type ExpectedIndex, keyOf, UNSEEN } from './expected-index.js';
import { type EntityVerdict, LISTED_AT_MOST } from './verify-result.js';

export interface FlaggedOptions {
  plans: EntityPlan[];
  indexes: Partial<Record<EntityName, ExpectedIndex>>;
  verdicts: Partial<Record<EntityName, EntityVerdict>>;
  /** Per entity, the service's items of the first differing records (read-service.ts). */
  differing: Partial<Record<EntityName, Map<number, Record<string, unknown>>>>;
  importSoftDeleted: boolean;
  sinceSec?: number;
  signal: AbortSignal;
  /** Each missing record, mapped as the import maps it: `verify --repair` sends it again. */
  onMissing?(record: MappedRecord): Promise<void>;
}

/**
 * The second reading of the export, only of entities where something is missing or different: the
 * expected index holds no ids, so this names them, with file:line: the first record of each key
 * met, as the first reading kept the first.
 */
export async function listFlagged(options: FlaggedOptions): Promise<void> {
  for (const plan of options.plans) {
    const name = plan.entity.name;
    const index = options.indexes[name];
    const verdict = options.verdicts[name];
    const flagged = index !== undefined && verdict !== undefined && verdict.missing + verdict.different > 0;
    if (!flagged) continue;
    const differing = options.differing[name] ?? new Map();
    for (const input of plan.inputs) {
      const slots = new ItemSlots(createMapper(mapperOptionsFor(plan.entity, plan.source, options)));
      for await (const items of readInputBatches(input, { signal: options.signal, entity: name })) {
        for (const item of items) {
          if (options.signal.aborted) throw new InterruptedError();
          if (slots.kindOf(item) !== RECORD) continue;
          const record = slots.record!;
          const i = index.find(keyOf(record.id));
          if (i < 0) continue;
          if (!index.firstVisit(i)) continue;
          const state = index.stateOf(i);
          const located = { id: record.id, file: record.file, line: record.line };
          if (state === UNSEEN && !index.isBeyondRetention(i)) {
            if (verdict.missingRecords.length < LISTED_AT_MOST) verdict.missingRecords.push(located);
            await options.onMissing?.(record);
          } else if (state === DIFFERENT && verdict.differentRecords.length < LISTED_AT_MOST) {
            const service = differing.get(i);
            const fields = service ? differingFields(name, record.payload, service) : [];
            verdict.differentRecords.push({ ...located, fields });
          }
        }
      }
    }
  }
}
