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
}

const same = (name: string, read: (v: unknown) => string | undefined): ComparedField => ({
  name,
  fromExport: (r) => read(r[name]),
  fromService: (r) => read(r[name]),
});

const messageData = (name: string, path: string, read: (v: unknown) => string | undefined): ComparedField => ({
  name,
  fromExport: (r) => read(dataOf(r)[path]),
  fromService: (r) => read(dataOf(r)[path]),
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
    same('isBanned', (v) => (v === true ? 'true' : undefined)),
  ],
  messages: [
    same('sender', lower),
    same('receiverType', plain),
    same('receiver', lower),
    same('sentAt', time),
    same('category', plain),
    same('type', plain),
    messageData('text', 'text', plain),
    { name: 'attachments', fromExport: attachmentCount, fromService: attachmentCount },
    same('tags', tags),
    messageData('metadata', 'metadata', object),
  ],
};

/** The export's side: which compared fields it gave (a bit each) and a 32-bit digest of their values. */
export function exportDigest(entity: EntityName, payload: JsonObject): { mask: number; digest: number } {
  const fields = COMPARED_FIELDS[entity];
  let mask = 0;
  let text = '';
  for (let i = 0; i < fields.length; i++) {
    const value = fields[i].fromExport(payload);
    if (value === undefined) continue;
    mask |= 1 << i;
    text += `${i}\u0000${value}\u0001`;
  }
  return { mask, digest: (hash53(text) % 4294967296) >>> 0 };
}

/** The service's side, over the fields the export gave (`mask`): equal to the export's when they agree. */
export function serviceDigest(entity: EntityName, item: Obj, mask: number): number {
  const fields = COMPARED_FIELDS[entity];
  let text = '';
  for (let i = 0; i < fields.length; i++) {
    if ((mask & (1 << i)) === 0) continue;
    text += `${i}\u0000${fields[i].fromService(item) ?? '\u0002'}\u0001`;
  }
  return (hash53(text) % 4294967296) >>> 0;
}

/** The names of the fields that differ, with both values, for the report. */
export function differingFields(
  entity: EntityName,
  payload: JsonObject,
  item: Obj,
): { field: string; expected: string; actual: string }[] {
  const out: { field: string; expected: string; actual: string }[] = [];
  for (const f of COMPARED_FIELDS[entity]) {
    const expected = f.fromExport(payload);
    if (expected === undefined) continue;
    const actual = f.fromService(item);
    if (actual !== expected) out.push({ field: f.name, expected, actual: actual ?? '(none)' });
  }
  return out;
}
