import type { CheckpointStore } from '../../checkpoint/store.js';
import type { BlockedMark } from '../../checkpoint/checkpoint-data.js';
import {
  MISSING_PARENT,
  type BlockedParent,
  type EntityName,
  type IdMaps,
  type ParentEntity,
} from '../../entities/types.js';
import { parentKey, type ExportIndex } from '../../rules/index.js';
import type { AnsweredBatch } from './batcher.js';

/**
 * Import's side of blocked parents (rules/blocked-parents.ts finds them and marks their children).
 * The hold lives on the parent, never on each child: the checkpoint keeps a table of the users and
 * groups not in (a small set), and a child's slot is acknowledged as held without a mark of its own.
 * While the table holds a parent that holds messages, every run reads every record again (a message
 * file is skipped as unchanged only when none does: unchanged-file.ts), so a child acknowledged while its parent
 * is in the table is looked at again: still held while the parent is out, sent once it is in
 * (an already-exists answer covers one that was in before its parent was refused). A parent stays
 * in the table, marked released, until a run has read all its children to the end. A parent missing
 * from the export is met through its children, so it enters the table with them, and it is released
 * when the export has it (read in by its phase) or when no child names it any more.
 */
export class ParentHolds {
  constructor(
    private readonly checkpoint: CheckpointStore,
    private readonly index: ExportIndex,
  ) {}

  /** The keys an earlier run blocked: what ExportIndex's `blockedBefore` takes. */
  static before(checkpoint: CheckpointStore, ids?: IdMaps): Set<string> {
    const keys = new Set<string>();
    for (const [key, mark] of Object.entries(checkpoint.blockedParents())) {
      keys.add(key);
      // A userMap or groupMap line added since points the children at the app's id: held under the
      // export's id, they must be looked at again under the new one, or they would count as done.
      const mapped = ids?.[mark.entity]?.get(mark.id.toLowerCase());
      if (mapped !== undefined) keys.add(parentKey(mark.entity, mapped));
    }
    return keys;
  }

  /** A parent the service refused holds its children back; one it took (a replay, a retry) lets them go. */
  answered({ outcome }: AnsweredBatch): void {
    if (outcome === undefined) return;
    for (const r of outcome.rejected) this.index.blocked.block(r.record, r.code);
    for (const a of outcome.accepted) this.index.blocked.release(a.record);
  }

  /** Users or groups read to their end: the table holds those out now, and those that got in since. */
  parentsRead(entity: ParentEntity): void {
    const table = this.checkpoint.blockedParents();
    for (const [key, mark] of Object.entries(table)) {
      if (mark.entity !== entity || this.index.blocked.has(key)) continue;
      // Still missing from the export: its children tell whether it holds any (childrenRead, runRead).
      if (mark.reason === MISSING_PARENT && !this.index.hasId(entity, mark.id)) continue;
      mark.released = true;
    }
    for (const parent of this.index.blocked.list(entity)) enter(table, parent);
  }

  /** Members or messages read to their end: what each parent holds, and the entity's count in the ledger. */
  childrenRead(entity: EntityName, blocked: number): void {
    if (entity !== 'members' && entity !== 'messages') return;
    const table = this.checkpoint.blockedParents();
    const now = new Map(this.index.blocked.list().map((p) => [parentKey(p.entity, p.id), p]));
    for (const parent of now.values()) if (parent.reason === MISSING_PARENT) enter(table, parent);
    for (const [key, mark] of Object.entries(table)) {
      mark.held[entity] = now.get(key)?.held[entity] ?? 0;
    }
    this.checkpoint.totals(entity).blocked = blocked;
  }

  /**
   * Every phase of the run read to its end: parents that got in have had all their children sent,
   * and a missing parent no child named this run holds nothing.
   */
  runRead(): void {
    for (const [key, mark] of Object.entries(this.checkpoint.blockedParents())) {
      if (mark.reason === MISSING_PARENT && !this.index.blocked.has(key)) mark.released = true;
    }
    this.checkpoint.forgetReleasedParents();
  }
}

/** The table's entry for a parent not in now (not released), keeping the counts it held so far. */
function enter(table: Record<string, BlockedMark>, parent: BlockedParent): void {
  const key = parentKey(parent.entity, parent.id);
  const { entity, id, file, line, reason } = parent;
  table[key] = { entity, id, file, line, reason, held: table[key]?.held ?? {} };
}
