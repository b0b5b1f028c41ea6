import type { EntityName, JsonObject } from './types.js';

/** What the pipeline needs to know about one entity of the import API. */
export interface EntityDef {
  name: EntityName;
  /** Singular, for messages ("user u7"). */
  singular: string;
  /** Field holding the record's id inside the payload. */
  idField: 'uid' | 'guid' | 'memberId' | 'muid';
  /** Path under `{baseUrl}/v3.0/data_import/`. */
  endpoint: string;
  /** Entities whose phase must finish first. */
  dependsOn: readonly EntityName[];
  /** Fields holding timestamps, sent as integer UNIX seconds. */
  timestampFields: readonly string[];
  /** Fields that hold JSON objects or arrays (CSV carries them as JSON text). */
  structuredFields: readonly string[];
  /** Fields that hold booleans (CSV carries them as text). */
  booleanFields: readonly string[];
  /** The record's id; members derive theirs from guid and uid. */
  idOf(payload: JsonObject): string;
  /** Codes with which the service says the record is already there: counted as imported. */
  alreadyExistsCodes: readonly string[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

export const users: EntityDef = {
  name: 'users',
  singular: 'user',
  idField: 'uid',
  endpoint: 'users',
  dependsOn: [],
  timestampFields: ['createdAt', 'lastActiveAt', 'deactivatedAt'],
  structuredFields: ['metadata', 'tags'],
  booleanFields: [],
  idOf: (p) => str(p.uid),
  alreadyExistsCodes: ['ERR_UID_ALREADY_EXISTS'],
};

export const groups: EntityDef = {
  name: 'groups',
  singular: 'group',
  idField: 'guid',
  endpoint: 'groups',
  dependsOn: ['users'],
  timestampFields: ['createdAt'],
  structuredFields: ['metadata', 'tags', 'groupOwnerDetails'],
  booleanFields: [],
  idOf: (p) => str(p.guid),
  alreadyExistsCodes: ['ERR_GUID_ALREADY_EXISTS'],
};

export const members: EntityDef = {
  name: 'members',
  singular: 'member',
  idField: 'memberId',
  endpoint: 'members',
  dependsOn: ['users', 'groups'],
  timestampFields: ['joinedAt'],
  structuredFields: ['groupDetails', 'userDetails'],
  booleanFields: ['isBanned'],
  idOf: (p) => `${str(p.guid)}_member_${str(p.uid)}`,
  alreadyExistsCodes: ['ERR_ALREADY_JOINED'],
};

export const messages: EntityDef = {
  name: 'messages',
  singular: 'message',
  idField: 'muid',
  endpoint: 'messages',
  dependsOn: ['users', 'groups'],
  timestampFields: ['sentAt', 'deliveredAt', 'readAt', 'deletedAt'],
  structuredFields: [
    'data',
    'tags',
    'senderUserDetails',
    'receiverUserDetails',
    'receiverGroupDetails',
    'mentionedUserDetails',
  ],
  booleanFields: [],
  idOf: (p) => str(p.muid),
  alreadyExistsCodes: ['ERR_IMPORT_MUID_ALREADY_EXISTS'],
};

export const ENTITIES: Readonly<Record<EntityName, EntityDef>> = { users, groups, members, messages };
