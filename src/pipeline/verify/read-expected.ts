import type { EntityName, SourceProblem } from '../../entities/types.js';
import { InterruptedError } from '../../errors.js';
import { checkRecord, hasError } from '../../rules/check-record.js';
import { ExportIndex } from '../../rules/index.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { ItemSlots, RECORD } from '../item-slots.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { COMPARED_FIELDS, exportFields } from './compared-fields.js';
import { keyOf } from './expected-index.js';
import { ExportSpill } from './verify-store.js';

export interface ExpectedOptions {
  plans: EntityPlan[];
  /** The entities to verify; the others are still read, for the checks that look across entities. */
  entities: ReadonlySet<EntityName>;
  nowSec: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** Messages sent before this UNIX second are beyond the service's retention (undefined: no window). */
  retentionCutoffSec?: number;
  /** Where the export's records are spilled. */
  dir: string;
  signal: AbortSignal;
  /** Records this migration sent from outside the export (read-service.ts `outsideExport`). */
  outsideExport?: ReadonlySet<string>;
  onProgress?(entity: EntityName, read: number): void;
}

/** What the export holds, per entity: the records the import sends, and what it does not. */
export interface ExpectedSide {
  spills: Partial<Record<EntityName, ExportSpill>>;
  /** Records the import does not send: the checks refuse them (they are in the rejects file), or a file problem. */
  refused: Partial<Record<EntityName, number>>;
  /** Records skipped on purpose (deleted, before --since, exact copies). */
  skipped: Partial<Record<EntityName, number>>;
}

/**
 * Reads the export as import does (same plans, mapping and checks, in import order) and spills a
 * hash of each compared field of each record the import would send, with its place among the
 * records. Records the checks refuse are counted apart: the import never sent them, and the
 * rejects file lists them.
 */
export async function readExpected(options: ExpectedOptions): Promise<ExpectedSide> {
  const configured = new Set(options.plans.map((p) => p.entity.name));
  // Message ids are not kept there: the expected index holds them, and its first record of an id is
  // the one the import stored (a later copy was answered already-exists).
  const index = new ExportIndex({ configured, nowSec: options.nowSec, messageIds: 'none' });
  const side: ExpectedSide = { spills: {}, refused: {}, skipped: {} };
  for (const plan of options.plans) {
    const name = plan.entity.name;
    const kept = options.entities.has(name);
    const expected = kept ? new ExportSpill(options.dir, name) : undefined;
    if (expected) side.spills[name] = expected;
    const hashes = new Uint32Array(COMPARED_FIELDS[name].length);
    // Each record's place as both readings meet them (list-flagged.ts counts the same way).
    let ord = -1;
    let refused = 0;
    let skipped = 0;
    let read = 0;
    for (const input of plan.inputs) {
      // Without the retention cutoff: an old message is expected (present if the service shows it, else
      // counted apart below), never skipped, or one imported while it was young would count as an extra.
      const { importSoftDeleted, sinceSec } = options;
      const slots = new ItemSlots(
        createMapper(mapperOptionsFor(plan.entity, plan.source, { importSoftDeleted, sinceSec })),
      );
      for await (const items of readInputBatches(input, { signal: options.signal, entity: name })) {
        for (const item of items) {
          if (options.signal.aborted) throw new InterruptedError();
          const kind = slots.kindOf(item);
          if (kind !== RECORD) {
            if (slots.record?.skip !== undefined) {
              skipped++;
              index.blocked.block(slots.record, `skipped:${slots.record.skip}`);
            } else if ((item as SourceProblem).ordinal !== undefined) refused++;
            continue;
          }
          const record = slots.record!;
          ord++;
          read++;
          const problems = checkRecord(record, index, options.nowSec);
          // Refused as the export has it, then fixed and replayed in: the service side counts it
          // present, and what it held back came in with it (not blocked, so expected).
          if (hasError(problems) && options.outsideExport?.has(`${name}\t${record.id.toLowerCase()}`)) continue;
          if (hasError(problems)) {
            refused++;
            index.blocked.block(record, problems.find((p) => p.severity === 'error')!.rule, problems);
            continue;
          }
          // Held back by a user or group import does not send: import does not send it either.
          if (record.blockedBy !== undefined) {
            refused++;
            continue;
          }
          if (record.skip !== undefined) {
            skipped++;
            continue;
          }
          if (!expected) continue;
          const mask = exportFields(name, record.payload, hashes);
          const sentAt = record.payload.sentAt;
          const cutoff = options.retentionCutoffSec;
          const beyondRetention = cutoff !== undefined && typeof sentAt === 'number' && sentAt < cutoff;
          expected.add({ key: keyOf(record.id), ord, mask, beyondRetention, hashes });
        }
        options.onProgress?.(name, read);
      }
    }
    if (kept) {
      side.refused[name] = refused;
      side.skipped[name] = skipped;
    }
  }
  return side;
}
