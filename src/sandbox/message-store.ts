import { LargeMap } from './large-map.js';
import type { JsonObject } from '../entities/types.js';
import { NumberColumn, TextArena } from './columns.js';

/** The fields kept in columns; everything else of a stored message is one JSON text (`rest`). */
const COLUMN_FIELDS = new Set(['id', 'muid', 'sender', 'receiver', 'receiverType', 'conversationId', 'sentAt']);

/** What a read filters on, besides the cursor. */
export interface MessageFilter {
  /** Index of one conversation (`conversationIndex`), or undefined for all. */
  conversation?: number;
  receiverType?: 'user' | 'group';
  sender?: string;
  /** Inclusive bounds on sentAt (UNIX seconds). */
  fromSeconds?: number;
  toSeconds?: number;
}

/**
 * Messages in slots, in the order the service gave them ids (ascending). Kept compact for
 * million-message read-backs: per message a few array cells (ids and the interned sender, receiver
 * and conversation) and, when records are kept, one JSON text of its other fields; no object per
 * message. A permanently deleted message leaves an empty slot.
 */
export class MessageStore {
  private slotOfMuid = new LargeMap<number>();
  private muids: (string | undefined)[] = [];
  private serviceIds = new NumberColumn((n) => new Float64Array(n));
  private sentAts = new NumberColumn((n) => new Float64Array(n));
  private senders = new NumberColumn((n) => new Int32Array(n));
  private receivers = new NumberColumn((n) => new Int32Array(n));
  private conversations = new NumberColumn((n) => new Int32Array(n));
  /** Where each message's other fields sit in `texts` (-1: none) and how many bytes. */
  private restAt = new NumberColumn((n) => new Float64Array(n));
  private restBytes = new NumberColumn((n) => new Int32Array(n));
  private texts = new TextArena();
  /** Interned uids and guids. */
  private names: string[] = [];
  private nameIndex = new Map<string, number>();
  private conversationIds: string[] = [];
  private conversationIndexOf = new Map<string, number>();
  /** Per conversation, its slots in ascending order. */
  private conversationSlots: number[][] = [];

  constructor(private readonly keepRecords: boolean) {}

  has(muid: string): boolean {
    return this.slotOfMuid.has(muid);
  }

  get size(): number {
    return this.slotOfMuid.size;
  }

  /** Stores a checked message (lower-cased ids, numeric times) under the service id `id`. */
  add(record: JsonObject, id: string): void {
    const muid = record.muid as string;
    const slot = this.muids.length;
    const conversation = this.intern(record.conversationId as string, true);
    this.slotOfMuid.set(muid, slot);
    this.muids.push(muid);
    this.serviceIds.push(Number(id));
    this.sentAts.push(record.sentAt as number);
    this.senders.push(this.intern(record.sender as string, false));
    // The receiver type is the receiver's sign: groups are stored negative.
    const receiver = this.intern(record.receiver as string, false);
    this.receivers.push(record.receiverType === 'group' ? -receiver - 1 : receiver);
    this.conversations.push(conversation);
    this.conversationSlots[conversation].push(slot);
    this.pushRest(this.keepRecords ? restText(record) : undefined);
  }

  private pushRest(text: string | undefined): void {
    const stored = text === undefined ? { at: -1, bytes: 0 } : this.texts.add(text);
    this.restAt.push(stored.at);
    this.restBytes.push(stored.bytes);
  }

  private rest(slot: number): string | undefined {
    const at = this.restAt.at(slot);
    return at < 0 ? undefined : this.texts.text(at, this.restBytes.at(slot));
  }

  /** The slot of a service id, or -1 (binary search: ids ascend with slots). */
  slotOfId(id: string): number {
    if (!/^\d{1,15}$/.test(id)) return -1;
    const wanted = Number(id);
    const ids = this.serviceIds;
    const at = upperBoundBy((i) => ids.at(i), wanted - 1, ids.length);
    return at < ids.length && ids.at(at) === wanted && this.muids[at] !== undefined ? at : -1;
  }

  slotOfMuidOrMinus(muid: string): number {
    return this.slotOfMuid.get(muid) ?? -1;
  }

  conversationIndex(conversationId: string): number | undefined {
    return this.conversationIndexOf.get(conversationId);
  }

  sentAt(slot: number): number {
    return this.sentAts.at(slot);
  }

  serviceId(slot: number): string {
    return String(this.serviceIds.at(slot));
  }

  muid(slot: number): string | undefined {
    return this.muids[slot];
  }

  /** Removes a message for good; its muid may be imported again. */
  remove(slot: number): void {
    const muid = this.muids[slot];
    if (muid === undefined) return;
    this.slotOfMuid.delete(muid);
    this.muids[slot] = undefined;
    this.restAt.set(slot, -1);
  }

  /** A soft delete: the message stays, with `deletedAt`. */
  markDeleted(slot: number, nowSeconds: number): void {
    const rest = this.rest(slot);
    const stored = this.texts.add(
      JSON.stringify({ ...(rest === undefined ? {} : JSON.parse(rest)), deletedAt: nowSeconds }),
    );
    this.restAt.set(slot, stored.at);
    this.restBytes.set(slot, stored.bytes);
  }

  /**
   * Walks the slots that pass `filter` and `visible`, ascending from the first id above `afterId`
   * (`forward`) or descending from the last id below `beforeId`; stops when `visit` returns false.
   */
  scan(
    filter: MessageFilter,
    from: { afterId?: number; beforeId?: number },
    visible: (slot: number) => boolean,
    visit: (slot: number) => boolean,
  ): void {
    const all = filter.conversation === undefined;
    const list = all ? undefined : this.conversationSlots[filter.conversation!];
    const length = list ? list.length : this.muids.length;
    const slotAt = list ? (i: number) => list[i] : (i: number) => i;
    const idAt = (i: number) => this.serviceIds.at(slotAt(i));
    const forward = from.beforeId === undefined;
    let i = forward
      ? from.afterId === undefined
        ? 0
        : upperBoundBy(idAt, from.afterId, length)
      : upperBoundBy(idAt, from.beforeId! - 1, length) - 1;
    for (; forward ? i < length : i >= 0; forward ? i++ : i--) {
      const slot = slotAt(i);
      if (this.muids[slot] === undefined || !this.passes(slot, filter) || !visible(slot)) continue;
      if (!visit(slot)) return;
    }
  }

  private passes(slot: number, f: MessageFilter): boolean {
    if (f.receiverType !== undefined && this.receivers.at(slot) < 0 !== (f.receiverType === 'group')) return false;
    if (f.sender !== undefined && this.names[this.senders.at(slot)] !== f.sender) return false;
    const sentAt = this.sentAts.at(slot);
    if (f.fromSeconds !== undefined && sentAt < f.fromSeconds) return false;
    return !(f.toSeconds !== undefined && sentAt > f.toSeconds);
  }

  /** The message as a read answers it, as JSON text; `withMuid` false leaves `muid` out. */
  itemText(slot: number, withMuid: boolean): string {
    const receiver = this.receivers.at(slot);
    const group = receiver < 0;
    const sentAt = this.sentAts.at(slot);
    const head =
      `{"id":"${this.serviceIds.at(slot)}"` +
      (withMuid ? `,"muid":${JSON.stringify(this.muids[slot])}` : '') +
      `,"conversationId":${JSON.stringify(this.conversationIds[this.conversations.at(slot)])}` +
      `,"sender":${JSON.stringify(this.names[this.senders.at(slot)])}` +
      `,"receiverType":"${group ? 'group' : 'user'}"` +
      `,"receiver":${JSON.stringify(this.names[group ? -receiver - 1 : receiver])}`;
    const rest = this.rest(slot);
    const middle = rest === undefined || rest === '{}' ? '' : `,${rest.slice(1, -1)}`;
    return `${head}${middle},"sentAt":${sentAt},"updatedAt":${sentAt}}`;
  }

  /** Every stored message as the import stored it (muid -> record, or true when only ids are kept). */
  entries(): [string, JsonObject | true][] {
    const out: [string, JsonObject | true][] = [];
    for (let slot = 0; slot < this.muids.length; slot++) {
      const muid = this.muids[slot];
      if (muid === undefined) continue;
      if (!this.keepRecords) {
        out.push([muid, true]);
        continue;
      }
      const item = JSON.parse(this.itemText(slot, true)) as JsonObject;
      delete item.updatedAt;
      out.push([muid, item]);
    }
    return out;
  }

  private intern(name: string, conversation: boolean): number {
    const index = conversation ? this.conversationIndexOf : this.nameIndex;
    const list = conversation ? this.conversationIds : this.names;
    let at = index.get(name);
    if (at === undefined) {
      at = list.length;
      list.push(name);
      index.set(name, at);
      if (conversation) this.conversationSlots.push([]);
    }
    return at;
  }
}

/** The fields outside the columns, as one JSON text. */
function restText(record: JsonObject): string {
  const rest: JsonObject = {};
  for (const key of Object.keys(record)) if (!COLUMN_FIELDS.has(key)) rest[key] = record[key];
  return JSON.stringify(rest);
}

/** The first index whose value is above `value`, in an ascending sequence. */
function upperBoundBy(at: (i: number) => number, value: number, length: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(mid) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
