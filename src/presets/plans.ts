/** The four phases of a preset run, in import order, each with its inputs. */
import { ENTITIES } from '../entities/index.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import type { EntityPlan, RecordInput } from '../pipeline/plan.js';

export function plansOf(inputs: Record<EntityName, RecordInput[]>): EntityPlan[] {
  // Mapping is the identity (presets emit the API's field names) and the deletion markers are the
  // defaults (`deletedAt` = soft-deleted, `deleted: "permanent"`), so no source settings are needed.
  return ENTITY_ORDER.map((name) => ({ entity: ENTITIES[name], source: {}, inputs: inputs[name] }));
}
