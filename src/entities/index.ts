import type { EntityName, JsonObject } from './types.js';

/** What the pipeline needs to know about one entity of the import API. */
export interface EntityDef {
  name: EntityName;
  /** Singular, for messages ("user u7"). */
  singular: string;
  /** Field holding the record's id inside the payload. */
  idField: 'uid' | 'guid' | 'memberId' | 'muid';
  /** Path under `{baseUrl}/{apiVersion}/data_import/` (apiVersion: `v3.0` by default). */
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
  /**
   * Top-level fields in the contract (docs/api-contract.md's table); the mapper drops others with a warning.
   * Groups also take `description`, which the service's groups have though the table leaves it out;
   * messages take only the table's fields (no updatedAt/editedAt).
   */
  fields: readonly string[];
  /** Fields that hold an id or a reference to one. */
  idFields: readonly string[];
  /**
   * Objects and arrays below the top level that a CSV's dotted column (`data.metadata`) carries as
   * JSON text. Only paths the contract types as objects/arrays: parsing any JSON-looking string would
   * turn a message text of "[1]" into an array.
   */
  nestedStructuredFields: readonly string[];
  /** The other records this one points at. */
  references: readonly Reference[];
}

export type ReferenceKind =
  | 'memberGroup'
  | 'memberUser'
  | 'groupOwner'
  | 'messageSender'
  | 'receiverUser'
  | 'receiverGroup';

/** A field that names a record of another entity, and the details object that may stand in for that record. */
export interface Reference {
  kind: ReferenceKind;
  field: string;
  target: 'users' | 'groups';
  /** An object carrying the referenced record's own fields (with its id), accepted in its place. */
  details: string;
  /** The reference holds only when this field has this value (a message's receiver by receiverType). */
  when?: { field: string; value: string };
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
  fields: ['uid', 'name', 'avatar', 'link', 'role', 'createdAt', 'lastActiveAt', 'deactivatedAt', 'metadata', 'tags'],
  idFields: ['uid'],
  nestedStructuredFields: [],
  references: [],
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
  fields: [
    'guid',
    'name',
    'type',
    'description',
    'icon',
    'password',
    'owner',
    'createdAt',
    'metadata',
    'tags',
    'groupOwnerDetails',
  ],
  idFields: ['guid', 'owner'],
  nestedStructuredFields: [],
  references: [{ kind: 'groupOwner', field: 'owner', target: 'users', details: 'groupOwnerDetails' }],
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
  fields: ['memberId', 'guid', 'uid', 'scope', 'isBanned', 'joinedAt', 'groupDetails', 'userDetails'],
  idFields: ['guid', 'uid'],
  nestedStructuredFields: [],
  references: [
    { kind: 'memberGroup', field: 'guid', target: 'groups', details: 'groupDetails' },
    { kind: 'memberUser', field: 'uid', target: 'users', details: 'userDetails' },
  ],
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
  fields: [
    'muid',
    'sender',
    'receiverType',
    'receiver',
    'sentAt',
    'category',
    'type',
    'data',
    'tags',
    'deliveredAt',
    'readAt',
    'senderUserDetails',
    'receiverUserDetails',
    'receiverGroupDetails',
    'mentionedUserDetails',
  ],
  idFields: ['muid', 'sender', 'receiver'],
  nestedStructuredFields: [
    'data.metadata',
    'data.attachments',
    'data.customData',
    'data.custome_data',
    'data.interactiveData',
    'data.interactiveData.formFields',
  ],
  references: [
    { kind: 'messageSender', field: 'sender', target: 'users', details: 'senderUserDetails' },
    {
      kind: 'receiverUser',
      field: 'receiver',
      target: 'users',
      details: 'receiverUserDetails',
      when: { field: 'receiverType', value: 'user' },
    },
    {
      kind: 'receiverGroup',
      field: 'receiver',
      target: 'groups',
      details: 'receiverGroupDetails',
      when: { field: 'receiverType', value: 'group' },
    },
  ],
};

export const ENTITIES: Readonly<Record<EntityName, EntityDef>> = { users, groups, members, messages };
