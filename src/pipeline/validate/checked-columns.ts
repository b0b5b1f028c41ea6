/**
 * What crosses between validate's two threads reading one NDJSON message file (checked-messages.ts
 * and its worker job, validate-worker.ts): the task, a block on its way out, and a block's checked
 * slots on their way back, as columns.
 */
import type { SourceConfig } from '../../config/types.js';
import { ENTITIES } from '../../entities/index.js';
import { NO_PROBLEMS } from '../../entities/types.js';
import type { EntityName, IdMaps, JsonObject, MappedRecord, Problem, SourceItem } from '../../entities/types.js';
import type { ResolvedFile } from '../../sources/types.js';

/** What the worker needs to map and check messages as this thread would. */
export interface MessageCheckTask {
  file: ResolvedFile;
  source: Pick<SourceConfig, 'map' | 'deletion' | 'values'> & { ids?: IdMaps };
  importSoftDeleted: boolean;
  sinceSec?: number;
  nowSec: number;
  /** Messages sent before this UNIX second are skipped as beyond the service's retention (the mapper's). */
  retentionCutoffSec?: number;
}

/**
 * A record the worker mapped and checked. `before`: its mapping and per-record problems, ahead of the
 * cross-record ones.
 */
export interface CheckedMessage {
  kind: 'checked';
  line: number;
  id: string;
  refs: JsonObject;
  before?: Problem[];
}

/** What the worker sends for each item of a block: problems as read; records checked, or skipped. */
export type CheckedSlot = Extract<SourceItem, { kind: 'problem' }> | CheckedMessage | { kind: 'skipped' };

/**
 * A worker block's slots as columns: a block of 270 messages as ~10 arrays instead of 270 objects
 * each with a nested one, which cost more to copy between threads than the cross-record checks.
 */
export interface CheckedColumns {
  /** Per item: 0 a checked message, 1 skipped, 2 a problem (in `problems`, in order). */
  kinds: Uint8Array;
  /** Per checked message, in order. */
  lines: Float64Array;
  ids: string[];
  senders: unknown[];
  receiverTypes: unknown[];
  receivers: unknown[];
  /** Checked messages (by their place among checked ones) with details objects or problems of their own. */
  extras: Array<{ at: number; details?: JsonObject; before?: Problem[] }>;
  problems: Array<Extract<SourceItem, { kind: 'problem' }>>;
  sawContent: boolean;
  /** Messages of the block older than the task's retention cutoff (set by the worker), and the first lines. */
  beyondRetention?: number;
  beyondRetentionLines?: number[];
  /** Attachments of the block with an http(s) URL, by host name (expiring-media.ts; set by the worker). */
  attachmentHosts?: Record<string, number>;
  /** The block's memory, handed back for the next block. */
  carrier: ArrayBuffer;
}

/** A block on its way to the worker, in memory that goes back and forth (see `readMessagesWithWorker`). */
export interface BlockMessage {
  carrier: ArrayBuffer;
  length: number;
  firstLine: number;
  badLines?: number[];
}

const CHECKED = 0;
const SKIPPED = 1;
const PROBLEM = 2;

/** The worker's side: a block's slots into columns. */
export function toColumns(slots: readonly CheckedSlot[], sawContent: boolean, carrier: ArrayBuffer): CheckedColumns {
  const kinds = new Uint8Array(slots.length);
  const checked = slots.filter((s): s is CheckedMessage => s.kind === 'checked');
  const columns: CheckedColumns = {
    kinds,
    lines: new Float64Array(checked.length),
    ids: new Array<string>(checked.length),
    senders: new Array<unknown>(checked.length),
    receiverTypes: new Array<unknown>(checked.length),
    receivers: new Array<unknown>(checked.length),
    extras: [],
    problems: [],
    sawContent,
    carrier,
  };
  let k = 0;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    if (slot.kind === 'problem') {
      kinds[i] = PROBLEM;
      columns.problems.push(slot);
    } else if (slot.kind === 'skipped') {
      kinds[i] = SKIPPED;
    } else {
      kinds[i] = CHECKED;
      const { sender, receiverType, receiver, ...details } = slot.refs;
      columns.lines[k] = slot.line;
      columns.ids[k] = slot.id;
      columns.senders[k] = sender;
      columns.receiverTypes[k] = receiverType;
      columns.receivers[k] = receiver;
      const hasDetails = Object.keys(details).length > 0;
      if (hasDetails || slot.before)
        columns.extras.push({ at: k, details: hasDetails ? details : undefined, before: slot.before });
      k++;
    }
  }
  return columns;
}

/** This thread's side: the columns back into slots. */
export function fromColumns(c: CheckedColumns): CheckedSlot[] {
  const slots = new Array<CheckedSlot>(c.kinds.length);
  let k = 0;
  let p = 0;
  let e = 0;
  for (let i = 0; i < c.kinds.length; i++) {
    const kind = c.kinds[i];
    if (kind === PROBLEM) slots[i] = c.problems[p++];
    else if (kind === SKIPPED) slots[i] = { kind: 'skipped' };
    else {
      const refs: JsonObject = { sender: c.senders[k], receiverType: c.receiverTypes[k], receiver: c.receivers[k] };
      const slot: CheckedMessage = { kind: 'checked', line: c.lines[k], id: c.ids[k], refs };
      const extra = c.extras[e];
      if (extra !== undefined && extra.at === k) {
        if (extra.details) Object.assign(refs, extra.details);
        if (extra.before) slot.before = extra.before;
        e++;
      }
      slots[i] = slot;
      k++;
    }
  }
  return slots;
}

/** The fields ExportIndex.check reads of a message; of a details object only the id it compares. */
const MESSAGE_REFERENCES = ENTITIES.messages.references;
const REF_FIELDS = [...new Set(MESSAGE_REFERENCES.flatMap((r) => (r.when ? [r.field, r.when.field] : [r.field])))];
const DETAILS = MESSAGE_REFERENCES.map((r) => [r.details, ENTITIES[r.target].idField] as const);

export function messageRefs(payload: JsonObject): JsonObject {
  const refs: JsonObject = {};
  for (const field of REF_FIELDS) refs[field] = payload[field];
  for (const [field, idField] of DETAILS) {
    const details = payload[field];
    if (typeof details === 'object' && details !== null && !Array.isArray(details))
      refs[field] = { [idField]: (details as JsonObject)[idField] };
  }
  return refs;
}

/** The record ExportIndex.check takes, rebuilt from what the worker sent. */
export function recordOfChecked(slot: CheckedMessage, display: string, entity: EntityName): MappedRecord {
  return {
    entity,
    payload: slot.refs,
    id: slot.id,
    source: slot.refs,
    file: display,
    line: slot.line,
    ordinal: 0,
    problems: NO_PROBLEMS,
  };
}
