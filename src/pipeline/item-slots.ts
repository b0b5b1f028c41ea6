/**
 * How every run counts what it reads: import, validate (in both its threads) and validate's second
 * reading of the messages all ask `ItemSlots.kindOf`, so "records read", the ordinals resume keys
 * on and validate's stop after --max-errors agree however a file was read. What each run then does
 * with a kind (reject it, tally it, send it) stays its own.
 */
import type { MappedRecord, SourceItem, SourceRecord } from '../entities/types.js';

/** A problem about the file, not a record (the header, a break that ends it): not read, no ordinal. */
export const FILE_PROBLEM = 0;
/** A record slot that holds a problem (a line that is not JSON): read, with an ordinal. */
export const BAD_SLOT = 1;
/** A record the mapping skips (a preset's bot message, a deleted one): read, with an ordinal. */
export const SKIP = 2;
/** A record to check and send: read, with an ordinal. */
export const RECORD = 3;
export type ItemKind = typeof FILE_PROBLEM | typeof BAD_SLOT | typeof SKIP | typeof RECORD;

/** Slots validate's worker hands back already mapped (checked-columns.ts): skipped, or a record checked there. */
export type ForeignSlot = { kind: 'skipped' } | { kind: 'checked' };

/** One per input read (it holds the input's mapper); one call per item, allocating nothing itself. */
export class ItemSlots {
  /** The record the last call mapped: set for SKIP and RECORD of a source record. */
  record: MappedRecord | undefined;
  /** The last item's ordinal: its slot in the input, -1 when it has none (file problems, foreign slots). */
  ordinal = -1;

  constructor(private readonly mapper: (item: SourceRecord) => MappedRecord) {}

  /** What `item` counts as; a source record is mapped here, since the mapping decides a skip. */
  kindOf(item: SourceItem | ForeignSlot): ItemKind {
    this.record = undefined;
    if (item.kind === 'problem') {
      this.ordinal = item.ordinal ?? -1;
      return item.ordinal === undefined ? FILE_PROBLEM : BAD_SLOT;
    }
    if (item.kind !== 'record') {
      this.ordinal = -1;
      return item.kind === 'skipped' ? SKIP : RECORD;
    }
    this.ordinal = item.ordinal;
    const record = this.mapper(item);
    this.record = record;
    return record.skip ? SKIP : RECORD;
  }
}

/** Whether an item of this kind counts as a record read (every kind but a file's own problem). */
export function countsAsRead(kind: ItemKind): boolean {
  return kind !== FILE_PROBLEM;
}
