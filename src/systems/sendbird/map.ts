/**
 * Sendbird's user, channel and message objects (as its Data Export and Platform API write them)
 * -> records. Channel `created_at` is in seconds, message `created_at` in milliseconds; `seconds()`
 * takes both.
 */
import type { JsonObject } from '../../entities/types.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { attachment, compact, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import { isObject } from '../shared/items.js';
import { groupOwner, groupRecord, joinedAfter, memberRecord, userRecord, type MemberInput } from '../shared/records.js';
import { atNameTokens, placeMentions } from '../shared/mentions.js';
import { messageRecord } from '../shared/message-record.js';

export interface SendbirdChannel {
  url: string;
  open: boolean;
  createdAt?: number;
  conversation: Conversation;
}

const userIdOf = (v: unknown): string | undefined => str(v) ?? (isObject(v) ? str(v.user_id) : undefined);
const idsOf = (list: unknown): string[] =>
  Array.isArray(list) ? list.map(userIdOf).filter((x): x is string => x !== undefined) : [];

export function mapSendbirdUser(u: JsonObject, deactivatedList: boolean, ctx: PresetContext): JsonObject {
  const id = str(u.user_id) ?? '';
  const lastSeen = seconds(u.last_seen_at);
  const inactive = deactivatedList || u.is_active === false;
  return userRecord({
    uid: ctx.uids.of(id),
    name: str(u.nickname),
    fallbackName: id,
    avatar: u.profile_url,
    createdAt: seconds(u.created_at),
    lastActiveAt: lastSeen,
    // The export keeps no deactivation time: the last thing known to have happened stands in.
    deactivatedAt: inactive ? (lastSeen ?? seconds(u.created_at)) : undefined,
    metadata: {
      ...(isObject(u.metadata) ? u.metadata : {}),
      preferredLanguages: u.preferred_languages,
      sendbirdUserId: id,
    },
  });
}

/** The member list of a channel: members, operators (admin) and banned users, each once. */
export function sendbirdMembers(
  c: JsonObject,
): Array<{ userId: string; scope: MemberInput['scope']; isBanned: boolean; joinedAt?: number }> {
  const operators = new Set([...idsOf(c.operators), ...idsOf(c.operator_ids)]);
  const banned = new Set([
    ...idsOf(c.banned_list),
    ...idsOf(c.banned_users),
    ...(Array.isArray(c.banned_list)
      ? c.banned_list
          .filter(isObject)
          .map((b) => userIdOf(b.user))
          .filter((x): x is string => x !== undefined)
      : []),
  ]);
  const out = new Map<string, { userId: string; scope: MemberInput['scope']; isBanned: boolean; joinedAt?: number }>();
  const members = Array.isArray(c.members) ? c.members : [];
  for (const m of members) {
    const userId = userIdOf(m);
    if (userId === undefined) continue;
    const o = isObject(m) ? m : {};
    if (o.role === 'operator') operators.add(userId);
    if (o.is_banned === true || o.state === 'banned') banned.add(userId);
    out.set(userId, {
      userId,
      scope: 'participant',
      isBanned: false,
      joinedAt: seconds(o.joined_ts) ?? seconds(o.joined_at),
    });
  }
  for (const id of [...operators, ...banned])
    if (!out.has(id)) out.set(id, { userId: id, scope: 'participant', isBanned: false });
  for (const entry of out.values()) {
    if (operators.has(entry.userId)) entry.scope = 'admin';
    if (banned.has(entry.userId)) entry.isBanned = true;
  }
  return [...out.values()];
}

export function mapSendbirdChannel(
  c: JsonObject,
  channel: SendbirdChannel,
  ctx: PresetContext,
): { value: JsonObject; skip?: string } {
  const members = sendbirdMembers(c);
  // The creator, else the first operator, else the first member: channels made through the API have no creator.
  const owner = groupOwner(
    userIdOf(c.created_by),
    members.filter((m) => m.scope === 'admin').map((m) => m.userId),
    members.map((m) => m.userId),
  );
  const value = groupRecord({
    guid: ctx.guids.of(channel.url),
    name: str(c.name),
    fallbackName: channel.url,
    type: channel.open || c.is_public === true ? 'public' : 'private',
    owner: owner && ctx.uids.of(owner),
    icon: c.cover_url,
    createdAt: channel.createdAt,
    tags: [str(c.custom_type)],
    metadata: {
      sendbirdChannelUrl: channel.url,
      sendbirdType: channel.open ? 'open' : 'group',
      customType: str(c.custom_type),
      data: str(c.data),
      isDistinct: c.is_distinct === true || undefined,
      isSuper: c.is_super === true || undefined,
      isBroadcast: c.is_broadcast === true || undefined,
      frozen: c.freeze === true || undefined,
    },
  });
  return channel.conversation.kind === 'direct' ? { value, skip: SKIP.direct } : { value };
}

export function mapSendbirdMembers(
  c: JsonObject,
  channel: SendbirdChannel,
  ctx: PresetContext,
): Array<{ value: JsonObject; skip?: string }> {
  return sendbirdMembers(c).map((m) => {
    const value = memberRecord({
      guid: ctx.guids.of(channel.url),
      uid: ctx.uids.of(m.userId),
      scope: m.scope,
      isBanned: m.isBanned,
      joinedAt: joinedAfter(m.joinedAt, channel.createdAt),
    });
    return channel.conversation.kind === 'direct' ? { value, skip: SKIP.direct } : { value };
  });
}

export function mapSendbirdMessage(
  m: JsonObject,
  channel: SendbirdChannel,
  ctx: PresetContext,
): { value: JsonObject; skip?: string; more: JsonObject[]; senderId?: string; system: boolean } {
  const type = (str(m.type) ?? 'MESG').toUpperCase();
  const system = type === 'ADMM' || type === 'ADMIN';
  const user = isObject(m.user) ? m.user : undefined;
  const senderId = system ? undefined : (userIdOf(user) ?? str(m.user_id));
  const files = [...(isObject(m.file) ? [m.file] : []), ...(Array.isArray(m.files) ? m.files.filter(isObject) : [])];
  const attachments = files
    .map((f) =>
      attachment({
        url: str(f.url),
        name: str(f.name) ?? str(f.file_name),
        mimeType: f.type ?? f.file_type,
        size: f.size ?? f.file_size,
      }),
    )
    .filter((a): a is Attachment => a !== undefined);
  const sentAt = sentSeconds(m.created_at);
  const mentioned = (Array.isArray(m.mentioned_users) ? m.mentioned_users : [])
    .map((u) => ({ id: userIdOf(u), nickname: isObject(u) ? str(u.nickname) : undefined }))
    .filter((u): u is { id: string; nickname: string | undefined } => u.id !== undefined);
  // Sendbird writes a mention as `@nickname` in the text and lists the user in mentioned_users.
  const mentions = placeMentions(
    str(m.message),
    atNameTokens(mentioned.map((u) => ({ uid: ctx.uids.of(u.id), names: [u.nickname, u.id] }))),
  );
  const built = messageRecord({
    muid: ctx.muids.of(str(m.message_id) ?? ''),
    muids: ctx.muids,
    sourceId: str(m.message_id) ?? '',
    sender: senderId === undefined ? ctx.options.systemUser : ctx.uids.of(senderId),
    conversation: channel.conversation,
    sentAt,
    text: str(m.message),
    mentions,
    attachments,
    placeholder:
      type === 'FILE' && attachments.length === 0
        ? `[file: ${files.map((f) => str(f.name) ?? 'file').join(', ') || 'unavailable'}]`
        : undefined,
    metadata: {
      sendbirdType: type === 'MESG' ? undefined : type,
      customType: str(m.custom_type),
      data: str(m.data),
      sortedMetaarray: Array.isArray(m.sorted_metaarray) ? m.sorted_metaarray : undefined,
      mentionType: idsOf(m.mentioned_users).length > 0 ? str(m.mention_type) : undefined,
      // Mentioned users the text does not name: kept, since no template can show them.
      mentions: mentioned.map((u) => ctx.uids.of(u.id)).filter((uid) => !mentions?.users.some((p) => p.uid === uid)),
      parentMessageId:
        str(m.parent_message_id) && m.parent_message_id !== 0 ? ctx.muids.of(String(m.parent_message_id)) : undefined,
      replyCount:
        isObject(m.thread_info) && typeof m.thread_info.reply_count === 'number'
          ? m.thread_info.reply_count
          : undefined,
      reactions: Array.isArray(m.reactions)
        ? m.reactions.filter(isObject).map((r) =>
            compact({
              key: str(r.key),
              users: idsOf(r.user_ids).map((id) => ctx.uids.of(id)),
              updatedAt: seconds(r.updated_at),
            }),
          )
        : undefined,
      editedAt:
        m.updated_at && seconds(m.updated_at) !== sentAt && m.is_removed !== true ? seconds(m.updated_at) : undefined,
    },
    deletedAt: m.is_removed === true ? (seconds(m.updated_at) ?? sentAt) : undefined,
  });
  const out: { value: JsonObject; skip?: string; more: JsonObject[]; senderId?: string; system: boolean } = {
    value: built.value,
    more: built.more,
    system,
  };
  const skip =
    str(m.message_id) === undefined ? SKIP.noId : !system && senderId === undefined ? SKIP.noSender : built.skip;
  if (skip !== undefined) out.skip = skip;
  if (senderId !== undefined) out.senderId = senderId;
  return out;
}
