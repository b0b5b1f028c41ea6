import { ExportIndex } from '../../rules/index.js';
import { hasError, ownProblems, withCross } from '../../rules/check-record.js';
import { idCollisionsOf, readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { ItemSlots, RECORD } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import type { ReplayItem, ReplaySource } from './replay-pass.js';

/** One record of a dry replay: sendable as it stands, or refused with the first error's rule. */
export interface DryReplayResult {
  item: ReplayItem;
  id: string;
  problem?: { rule: string; field?: string; message: string };
  /** Why the replay would leave it out, as the import skips it (`beyond-retention`, `since`...). */
  skipped?: string;
}

/**
 * `replay --dry-run`: what the replay would send, sending nothing. The export is read first, entity
 * by entity as the import does, so that references are checked against it (and the maps' targets);
 * then each record still open is mapped and checked as the replay pass checks it.
 */
export async function checkReplayDry(
  plans: readonly EntityPlan[],
  replay: ReplaySource,
  isOpen: (item: ReplayItem) => boolean,
  run: { importSoftDeleted: boolean; nowSec: number; retentionCutoffSec?: number; stop?: AbortSignal },
): Promise<DryReplayResult[]> {
  const configured = new Set(plans.map((p) => p.entity.name));
  const knownIds = plans[0]?.source.ids;
  const idCollisions = idCollisionsOf(plans);
  const index = new ExportIndex({ configured, nowSec: run.nowSec, messageIds: 'bloom', knownIds, idCollisions });
  const results: DryReplayResult[] = [];
  for (const plan of plans) {
    const entity = plan.entity.name;
    const slots = new ItemSlots(createMapper(mapperOptionsFor(plan.entity, plan.source, run)));
    for (const input of plan.inputs) {
      for await (const items of readInputBatches(input, { entity, signal: run.stop })) {
        for (const item of items) if (slots.kindOf(item) === RECORD) index.check(slots.record!);
      }
    }
    for (const item of replay.itemsFor(entity)) {
      if (!isOpen(item)) continue;
      const { file, line, ordinal } = item;
      slots.kindOf({ kind: 'record', value: item.record, file, line, ordinal });
      const record = slots.record!;
      const problems = record.skip ? [] : withCross(ownProblems(record, run.nowSec), index.checkReplayed(record));
      const first = hasError(problems) ? problems.find((p) => p.severity === 'error') : undefined;
      const problem = first && { rule: first.rule, field: first.field, message: first.message };
      results.push(record.skip ? { item, id: record.id, skipped: record.skip } : { item, id: record.id, problem });
    }
  }
  return results;
}
