import type { EntityName, JsonObject } from '../entities/types.js';
import {
  checkId,
  checkName,
  checkObject,
  checkOneOf,
  checkTags,
  checkUrl,
  fitsBytes,
  isPlainObject,
  parseTimestamp,
} from './field-checks.js';

/**
 * Per-record rules of the import API (docs/api-contract.md, "The four endpoints" and "Identifier and size
 * rules"). A record that fails is answered with its own error and not stored; the others go on.
 */

export type RuleOutcome =
  /** `answer` is what the 200 answer echoes for the record: the stored form, or a message's summary. */
  { ok: true; id: string; entity: JsonObject; answer: JsonObject } | { ok: false; code: string; message: string };

/** What a rule may know beyond the record itself. */
export interface RuleContext {
  nowSeconds: number;
  /** `createdAt` of a stored group, by lower-cased guid. */
  groupCreatedAt(guid: string): number | undefined;
  /** False when the store keeps ids only: a message then needs no stored copy, only its answer. */
  keepRecords: boolean;
}

const USER_FORMAT = 'ERR_IMPORT_INVALID_USER_FORMAT';
const GROUP_FORMAT = 'ERR_IMPORT_INVALID_GROUP_FORMAT';
const MEMBER_FORMAT = 'ERR_IMPORT_INVALID_MEMBER_FORMAT';
const MESSAGE_FORMAT = 'ERR_IMPORT_INVALID_MESSAGE_FORMAT';
const METADATA_BYTES = 5 * 1024;
const MESSAGE_DATA_BYTES = 10 * 1024;

const reject = (code: string, message: string): RuleOutcome => ({ ok: false, code, message });
/** A record whose answer echoes it as stored. */
const accept = (id: string, entity: JsonObject): RuleOutcome => ({ ok: true, id, entity, answer: entity });

function keyMismatch(key: string, id: unknown, field: string): string | undefined {
  return key === id ? undefined : `the record's key must equal its ${field}`;
}

function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined || value === null || typeof value === 'string' ? undefined : `${field} must be a string`;
}

/** Converts the timestamp fields present to numbers, the form the service stores and answers. */
function readTimes(
  record: JsonObject,
  fields: readonly string[],
): { ok: true; times: Record<string, number> } | { ok: false; problem: string } {
  const times: Record<string, number> = {};
  for (const field of fields) {
    const parsed = parseTimestamp(record[field], field);
    if (typeof parsed === 'object') return { ok: false, problem: parsed.problem };
    if (parsed !== undefined) times[field] = parsed;
  }
  return { ok: true, times };
}

function checkUser(key: string, r: JsonObject): RuleOutcome {
  const problem =
    checkId(r.uid, 'uid') ??
    keyMismatch(key, r.uid, 'uid') ??
    checkName(r.name, 'name') ??
    checkUrl(r.avatar, 'avatar') ??
    checkUrl(r.link, 'link') ??
    optionalString(r.role, 'role') ??
    checkObject(r.metadata, 'metadata', METADATA_BYTES) ??
    checkTags(r.tags, 'tags');
  if (problem) return reject(USER_FORMAT, problem);
  const t = readTimes(r, ['createdAt', 'lastActiveAt', 'deactivatedAt']);
  if (!t.ok) return reject(USER_FORMAT, t.problem);
  const uid = key.toLowerCase();
  return accept(uid, { ...r, ...t.times, uid });
}

function checkGroup(key: string, r: JsonObject): RuleOutcome {
  const problem =
    checkId(r.guid, 'guid') ??
    keyMismatch(key, r.guid, 'guid') ??
    checkName(r.name, 'name') ??
    checkOneOf(r.type, 'type', ['public', 'private', 'password']) ??
    (r.type === 'password' ? checkName(r.password, 'password (for a password group)') : undefined) ??
    optionalString(r.password, 'password') ??
    checkUrl(r.icon, 'icon') ??
    (r.owner === undefined || r.owner === null ? undefined : checkId(r.owner, 'owner')) ??
    checkObject(r.metadata, 'metadata', METADATA_BYTES) ??
    checkTags(r.tags, 'tags') ??
    checkObject(r.groupOwnerDetails, 'groupOwnerDetails', Infinity);
  if (problem) return reject(GROUP_FORMAT, problem);
  const t = readTimes(r, ['createdAt']);
  if (!t.ok) return reject(GROUP_FORMAT, t.problem);
  const guid = key.toLowerCase();
  const owner = typeof r.owner === 'string' ? { owner: r.owner.toLowerCase() } : {};
  return accept(guid, { ...r, ...t.times, ...owner, guid });
}

function checkMember(key: string, r: JsonObject, ctx: RuleContext): RuleOutcome {
  const problem =
    checkId(r.guid, 'guid') ??
    checkId(r.uid, 'uid') ??
    keyMismatch(key, `${String(r.guid)}_member_${String(r.uid)}`, '<guid>_member_<uid>') ??
    (r.memberId === undefined ? undefined : keyMismatch(key, r.memberId, 'memberId')) ??
    (r.scope === undefined ? undefined : checkOneOf(r.scope, 'scope', ['admin', 'moderator', 'participant'])) ??
    (r.isBanned === undefined || typeof r.isBanned === 'boolean' ? undefined : 'isBanned must be a boolean') ??
    checkObject(r.groupDetails, 'groupDetails', Infinity) ??
    checkObject(r.userDetails, 'userDetails', Infinity);
  if (problem) return reject(MEMBER_FORMAT, problem);
  const t = readTimes(r, ['joinedAt']);
  if (!t.ok) return reject(MEMBER_FORMAT, t.problem);
  const guid = (r.guid as string).toLowerCase();
  const uid = (r.uid as string).toLowerCase();
  const joinedAt = t.times.joinedAt;
  if (joinedAt !== undefined) {
    if (joinedAt > ctx.nowSeconds) return reject('ERR_IMPORT_INVALID_JOINEDAT', 'joinedAt is in the future');
    const createdAt = ctx.groupCreatedAt(guid);
    // The vendor's constraints page: joinedAt must be greater than the group's createdAt.
    if (createdAt !== undefined && joinedAt <= createdAt) {
      return reject('ERR_IMPORT_INVALID_JOINEDAT', "joinedAt is not after the group's createdAt");
    }
  }
  const memberId = key.toLowerCase();
  return accept(memberId, { ...r, ...t.times, memberId, guid, uid });
}

const MESSAGE_TYPES = ['text', 'image', 'file', 'audio', 'video'] as const;

function checkMessage(key: string, r: JsonObject, ctx: RuleContext): RuleOutcome {
  const custom = r.category === 'custom';
  const problem =
    checkId(r.muid, 'muid') ??
    keyMismatch(key, r.muid, 'muid') ??
    checkId(r.sender, 'sender') ??
    checkOneOf(r.receiverType, 'receiverType', ['user', 'group']) ??
    checkId(r.receiver, 'receiver') ??
    (r.sentAt === undefined || r.sentAt === null ? 'sentAt is required' : undefined) ??
    (r.category === undefined ? undefined : checkOneOf(r.category, 'category', ['message', 'custom'])) ??
    (custom ? optionalString(r.type, 'type') : checkOneOf(r.type, 'type', MESSAGE_TYPES)) ??
    (r.data === undefined || isPlainObject(r.data) ? undefined : 'data must be an object') ??
    (r.data !== undefined && !fitsBytes(r.data, MESSAGE_DATA_BYTES)
      ? `data must be at most ${MESSAGE_DATA_BYTES} bytes serialised`
      : undefined) ??
    checkTags(r.tags, 'tags', 25);
  if (problem) return reject(MESSAGE_FORMAT, problem);
  const t = readTimes(r, ['sentAt', 'deliveredAt', 'readAt', 'deletedAt']);
  if (!t.ok) return reject(MESSAGE_FORMAT, t.problem);
  if (!custom && r.type === 'text') {
    const text = isPlainObject(r.data) ? r.data.text : undefined;
    if (text !== undefined && typeof text !== 'string') return reject(MESSAGE_FORMAT, 'data.text must be a string');
    if (text === undefined || text === '') return reject('ERR_EMPTY_MESSAGE_TEXT', 'a text message needs data.text');
  }
  // From the parsed record, not the key: a key may be a slice of the whole body, which a stored muid would keep alive.
  const muid = (r.muid as string).toLowerCase();
  const sender = (r.sender as string).toLowerCase();
  const receiver = (r.receiver as string).toLowerCase();
  const conversationId = r.receiverType === 'group' ? `group_${receiver}` : [sender, receiver].sort().join('_user_');
  // `id` is the service's own message id, filled in when the message is stored. The answer carries what
  // identifies the message, not its content: the service's examples echo ids and the conversation, and
  // echoing 50 message bodies back would double what both sides parse.
  const answer = {
    id: '',
    muid,
    conversationId,
    sender,
    receiverType: r.receiverType,
    receiver,
    sentAt: t.times.sentAt,
  };
  const entity = ctx.keepRecords
    ? { ...r, ...t.times, id: '', muid, sender, receiver, category: r.category ?? 'message', conversationId }
    : answer;
  return { ok: true, id: muid, entity, answer };
}

/** Checks one record of `entity` sent under `key`; on success gives its stored, lower-cased form. */
export function checkRecord(entity: EntityName, key: string, value: unknown, ctx: RuleContext): RuleOutcome {
  const formats: Record<EntityName, string> = {
    users: USER_FORMAT,
    groups: GROUP_FORMAT,
    members: MEMBER_FORMAT,
    messages: MESSAGE_FORMAT,
  };
  if (!isPlainObject(value)) return reject(formats[entity], 'the record must be a JSON object');
  switch (entity) {
    case 'users':
      return checkUser(key, value);
    case 'groups':
      return checkGroup(key, value);
    case 'members':
      return checkMember(key, value, ctx);
    case 'messages':
      return checkMessage(key, value, ctx);
  }
}
