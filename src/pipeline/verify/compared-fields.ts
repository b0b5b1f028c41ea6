/**
 * The fields verify compares: those the service echoes on reads (docs/verify.md), each read from
 * the import's payload (after the mapping) and from the service's item the way the service stores it
 * (ids lower-cased, times in seconds). Only fields the export gave are compared: a field it left out
 * holds the service's default, which no export can be wrong about.
 */
import type { EntityName, JsonObject } from '../../entities/types.js';
import { hash53 } from './expected-index.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with keys sorted at every level: two equal objects give one text whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObj(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A value as compared; undefined when absent (null and '' count as absent). */
type Read = (record: Obj) => string | undefined;

const plain = (v: unknown): string | undefined =>
  v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? v : canonical(v);
const lower = (v: unknown): string | undefined => plain(v)?.toLowerCase();
const object = (v: unknown): string | undefined => (isObj(v) && Object.keys(v).length > 0 ? canonical(v) : undefined);
/** Tags as a set: the order they are listed in says nothing. */
const tags = (v: unknown): string | undefined =>
  Array.isArray(v) && v.length > 0 ? canonical(v.map(String).sort()) : undefined;
const time = (v: unknown): string | undefined => (typeof v === 'number' ? String(Math.floor(v)) : plain(v));
const dataOf = (r: Obj): Obj => (isObj(r.data) ? r.data : {});

export interface ComparedField {
  name: string;
  fromExport: Read;
  fromService: Read;
  /** Whether a service item carries the field at all (present, if empty): a field no item carries is not compared. */
  shownIn: (item: Obj) => boolean;
}

const same = (name: string, read: (v: unknown) => string | undefined): ComparedField => ({
  name,
  fromExport: (r) => read(r[name]),
  fromService: (r) => read(r[name]),
  shownIn: (r) => r[name] !== undefined,
});

const messageData = (name: string, path: string, read: (v: unknown) => string | undefined): ComparedField => ({
  name,
  fromExport: (r) => read(dataOf(r)[path]),
  fromService: (r) => read(dataOf(r)[path]),
  shownIn: (r) => dataOf(r)[path] !== undefined,
});

const attachmentCount = (r: Obj): string | undefined => {
  const list = dataOf(r).attachments;
  return Array.isArray(list) && list.length > 0 ? String(list.length) : undefined;
};

export const COMPARED_FIELDS: Readonly<Record<EntityName, readonly ComparedField[]>> = {
  users: [
    same('name', plain),
    same('avatar', plain),
    same('link', plain),
    same('role', plain),
    same('metadata', object),
    same('tags', tags),
  ],
  groups: [
    same('name', plain),
    same('type', plain),
    same('description', plain),
    same('icon', plain),
    same('owner', lower),
    same('metadata', object),
    same('tags', tags),
  ],
  members: [
    same('scope', plain),
    // Only a ban is compared: a member not banned may be sent without the flag or with false.
    // Always shown: the banned list it comes from is read for every group.
    { ...same('isBanned', (v) => (v === true ? 'true' : undefined)), shownIn: () => true },
  ],
  messages: [
    same('sender', lower),
    same('receiverType', plain),
    same('receiver', lower),
    same('sentAt', time),
    same('category', plain),
    same('type', plain),
    messageData('text', 'text', plain),
    {
      name: 'attachments',
      fromExport: attachmentCount,
      fromService: attachmentCount,
      shownIn: (r) => dataOf(r).attachments !== undefined,
    },
    same('tags', tags),
    messageData('metadata', 'metadata', object),
  ],
};

/** A field's value as a 32-bit number; an absent value has its own. */
const fieldHash = (value: string | undefined): number =>
  value === undefined ? 0x02020202 : (hash53(value) % 4294967296) >>> 0;

/** The export's side: which compared fields it gave (a bit each) and a 32-bit hash of each value. */
export function exportFields(entity: EntityName, payload: JsonObject, hashes: Uint32Array): number {
  const fields = COMPARED_FIELDS[entity];
  let mask = 0;
  for (let i = 0; i < fields.length; i++) {
    const value = fields[i].fromExport(payload);
    hashes[i] = fieldHash(value);
    if (value !== undefined) mask |= 1 << i;
  }
  return mask;
}

/** The service's side: which compared fields the item carries (a bit each), each value's hash, and the values. */
export function serviceFields(
  entity: EntityName,
  item: Obj,
  hashes: Uint32Array,
): { shown: number; values: (string | null)[] } {
  const fields = COMPARED_FIELDS[entity];
  let shown = 0;
  const values: (string | null)[] = [];
  for (let i = 0; i < fields.length; i++) {
    const value = fields[i].fromService(item);
    hashes[i] = fieldHash(value);
    values.push(value ?? null);
    if (fields[i].shownIn(item)) shown |= 1 << i;
  }
  return { shown, values };
}

/** One 32-bit digest of the fields in `mask`: equal on both sides when every one of them agrees. */
export function digestOf(hashes: Uint32Array, mask: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < hashes.length; i++) {
    if ((mask & (1 << i)) === 0) continue;
    h = Math.imul(h ^ hashes[i], 0x01000193) ^ Math.imul(i + 1, 0x9e3779b1);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/** The names of the fields in `compared` that differ, with both values, for the report. */
export function differingFields(
  entity: EntityName,
  payload: JsonObject,
  serviceValues: readonly (string | null)[],
  compared: number,
): { field: string; expected: string; actual: string }[] {
  const out: { field: string; expected: string; actual: string }[] = [];
  COMPARED_FIELDS[entity].forEach((f, i) => {
    if ((compared & (1 << i)) === 0) return;
    const expected = f.fromExport(payload);
    if (expected === undefined) return;
    const actual = serviceValues[i] ?? undefined;
    if (actual !== expected) out.push({ field: f.name, expected, actual: actual ?? '(none)' });
  });
  return out;
}
