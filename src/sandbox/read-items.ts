import type { JsonObject } from '../entities/types.js';
import type { RecordStore, Scope } from './record-store.js';

/**
 * Stored records as the service's reads show them (docs/service-reads.md, "Items"). With `keepRecords` false
 * only ids (and a member's scope) are known, so items carry just those: documented in docs/sandbox.md.
 */

const pick = (record: JsonObject, fields: readonly string[], into: JsonObject): JsonObject => {
  for (const field of fields) if (record[field] !== undefined && record[field] !== null) into[field] = record[field];
  return into;
};

const USER_FIELDS = ['name', 'avatar', 'link', 'role', 'metadata', 'createdAt'] as const;
const GROUP_FIELDS = ['name', 'type', 'icon', 'description', 'owner', 'createdAt', 'metadata'] as const;

export function userItem(store: RecordStore, uid: string, withTags: boolean): JsonObject {
  const record = store.get('users', uid);
  const item: JsonObject = { uid };
  if (record === undefined || record === true) return item;
  pick(record, USER_FIELDS, item);
  item.role ??= 'default';
  item.status = store.isDeactivated(uid) ? 'inactive' : 'offline';
  if (record.createdAt !== undefined) item.updatedAt = record.createdAt;
  if (withTags) item.tags = record.tags ?? [];
  return item;
}

/** `shown.metadata` false: the item leaves `metadata` out, as a service might (the read reference does not say). */
export function groupItem(
  store: RecordStore,
  guid: string,
  withTags: boolean,
  shown: { metadata: boolean } = { metadata: true },
): JsonObject {
  const record = store.get('groups', guid);
  const item: JsonObject = { guid };
  if (record !== undefined && record !== true) {
    pick(record, shown.metadata ? GROUP_FIELDS : GROUP_FIELDS.filter((f) => f !== 'metadata'), item);
    if (record.createdAt !== undefined) item.updatedAt = record.createdAt;
    if (withTags) item.tags = record.tags ?? [];
  }
  item.membersCount = store.members(guid, false).length;
  return item;
}

/** A member: the user's fields, its scope, and when it joined. */
export function memberItem(store: RecordStore, guid: string, member: { uid: string; scope: Scope }): JsonObject {
  const item = userItem(store, member.uid, false);
  item.scope = member.scope;
  const record = store.get('members', `${guid}_member_${member.uid}`);
  if (record !== undefined && record !== true && record.joinedAt !== undefined) item.joinedAt = record.joinedAt;
  return item;
}
