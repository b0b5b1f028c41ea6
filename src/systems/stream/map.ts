/**
 * Stream's user, channel, member and message objects -> records. The same functions serve the
 * import format (ids as strings: `user`, `created_by`) and the channel export (embedded objects:
 * `user: {id, name, ...}`).
 */
import type { JsonObject } from '../../entities/types.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { attachment, compact, mimeOf, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import { isObject } from '../shared/items.js';
import { groupOwner, groupRecord, joinedAfter, memberRecord, userRecord } from '../shared/records.js';
import { atNameTokens, placeMentions } from '../shared/mentions.js';
import { messageRecord, type CustomPart } from '../shared/message-record.js';

export interface StreamChannel {
  key: string;
  type: string;
  id: string;
  /** Member ids when the channel is distinct (`member_ids`, or a `!members-` id's member list). */
  distinctMembers?: string[];
  createdAt?: number;
  conversation: Conversation;
  /** Source ids of its first member and first owner/admin member (members files), for a group with no creator. */
  firstMember?: string;
  firstAdmin?: string;
}

export interface ReactionSeen {
  type: string;
  user?: string;
  at?: number;
}

/** Stream ids one level deep: `"u1"` or `{"id": "u1", ...}`. */
export const idOf = (v: unknown): string | undefined => str(v) ?? (isObject(v) ? str(v.id) : undefined);

/** `type:id`, or for a distinct channel without id its type and sorted member ids (how Stream tells it apart). */
export function channelKey(type: string | undefined, id: string | undefined, memberIds: unknown): string | undefined {
  const t = type ?? 'messaging';
  if (id !== undefined) return `${t}:${id}`;
  if (!Array.isArray(memberIds) || memberIds.length === 0) return undefined;
  return `${t}:!members-${memberIds.map(String).sort().join(',')}`;
}

// Stream's own channel types that anyone may read; the rest (messaging, team, custom ones) are private.
const PUBLIC_TYPES = new Set(['livestream', 'gaming']);
const USER_FIELDS = new Set([
  'id',
  'name',
  'image',
  'role',
  'teams',
  'created_at',
  'updated_at',
  'deactivated_at',
  'deleted_at',
  'last_active',
  'online',
  'banned',
  'invisible',
  'language',
  'push_notifications',
  'channel_mutes',
  'user_mutes',
]);
const CHANNEL_FIELDS = new Set([
  'id',
  'type',
  'cid',
  'name',
  'image',
  'created_by',
  'created_by_id',
  'created_at',
  'updated_at',
  'deleted_at',
  'last_message_at',
  'team',
  'frozen',
  'disabled',
  'hidden',
  'member_count',
  'members',
  'member_ids',
  'config',
  'own_capabilities',
  'cooldown',
  'truncated_at',
  'truncated_by',
  'auto_translation_enabled',
  'auto_translation_language',
]);
const MESSAGE_FIELDS = new Set([
  'id',
  'text',
  'html',
  'type',
  'user',
  'attachments',
  'latest_reactions',
  'own_reactions',
  'reaction_counts',
  'reaction_scores',
  'reaction_groups',
  'reply_count',
  'deleted_reply_count',
  'cid',
  'created_at',
  'updated_at',
  'deleted_at',
  'shadowed',
  'mentioned_users',
  'mentioned_users_ids',
  'silent',
  'pinned',
  'pinned_at',
  'pinned_by',
  'pinned_by_id',
  'pin_expires',
  'parent_id',
  'show_in_channel',
  'quoted_message_id',
  'quoted_message',
  'channel_id',
  'channel_type',
  'channel_member_ids',
  'i18n',
  'command',
  'args',
  'thread_participants',
]);

const extras = (o: JsonObject, known: ReadonlySet<string>): JsonObject | undefined => {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (!known.has(k)) out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
};

export function mapStreamUser(u: JsonObject, ctx: PresetContext): JsonObject {
  const id = idOf(u) ?? '';
  return userRecord({
    uid: ctx.uids.of(id),
    name: str(u.name),
    fallbackName: id,
    avatar: u.image,
    createdAt: seconds(u.created_at),
    lastActiveAt: seconds(u.last_active),
    deactivatedAt: seconds(u.deactivated_at) ?? seconds(u.deleted_at),
    // Custom fields at the top of metadata, as the vendor's guide puts them; the source id beside them.
    metadata: {
      ...extras(u, USER_FIELDS),
      role: str(u.role),
      teams: u.teams,
      language: str(u.language),
      streamUserId: id,
    },
  });
}

export function mapStreamChannel(
  c: JsonObject,
  channel: StreamChannel,
  ctx: PresetContext,
): { value: JsonObject; skip?: string } {
  const owner = groupOwner(
    idOf(c.created_by) ?? str(c.created_by_id),
    channel.firstAdmin === undefined ? [] : [channel.firstAdmin],
    channel.firstMember === undefined ? [] : [channel.firstMember],
  );
  const value = groupRecord({
    guid: channel.conversation.kind === 'group' ? channel.conversation.guid : ctx.guids.of(channel.key),
    name: str(c.name),
    fallbackName: channel.id,
    type: PUBLIC_TYPES.has(channel.type) ? 'public' : 'private',
    owner: owner && ctx.uids.of(owner),
    icon: c.image,
    createdAt: channel.createdAt,
    tags: [channel.type],
    metadata: {
      ...extras(c, CHANNEL_FIELDS),
      streamCid: channel.key,
      streamType: channel.type,
      streamId: channel.id,
      team: str(c.team),
      frozen: c.frozen === true || undefined,
      disabled: c.disabled === true || undefined,
    },
  });
  return channel.conversation.kind === 'direct' ? { value, skip: SKIP.direct } : { value };
}

export function mapStreamMember(
  m: JsonObject,
  channel: StreamChannel,
  ctx: PresetContext,
): { value: JsonObject; skip?: string } {
  const value = memberRecord({
    guid: channel.conversation.kind === 'group' ? channel.conversation.guid : ctx.guids.of(channel.key),
    uid: ctx.uids.of(idOf(m.user_id) ?? idOf(m.user) ?? ''),
    scope: streamScope(m),
    isBanned: m.banned === true,
    // The service refuses a join at or before the group's creation; Stream can record the member first.
    joinedAt: joinedAfter(seconds(m.created_at), channel.createdAt),
  });
  return channel.conversation.kind === 'direct' ? { value, skip: SKIP.direct } : { value };
}

/** A member's scope: Stream's owner and admins are admins, its moderators moderators. */
export function streamScope(m: JsonObject): 'admin' | 'moderator' | 'participant' {
  const role = str(m.role);
  const channelRole = str(m.channel_role);
  return role === 'owner' || role === 'admin' || channelRole === 'channel_admin'
    ? 'admin'
    : channelRole === 'channel_moderator' || role === 'moderator' || m.is_moderator === true
      ? 'moderator'
      : 'participant';
}

export function mapStreamMessage(
  m: JsonObject,
  channel: StreamChannel,
  reactions: ReactionSeen[] | undefined,
  ctx: PresetContext,
): { value: JsonObject; skip?: string; more: JsonObject[]; senderId?: string } {
  const type = str(m.type) ?? 'regular';
  const senderId = type === 'system' ? undefined : idOf(m.user);
  const links: JsonObject[] = [];
  const files: Attachment[] = [];
  const custom: CustomPart[] = [];
  // Uploads whose file is gone (an empty or expired asset_url): named in a placeholder, not dropped.
  const gone: string[] = [];
  for (const a of Array.isArray(m.attachments) ? m.attachments.filter(isObject) : []) {
    const url = str(a.asset_url) ?? str(a.image_url) ?? (a.type === 'giphy' ? str(a.thumb_url) : undefined);
    const file =
      a.og_scrape_url === undefined
        ? attachment({
            url,
            name: str(a.title) ?? str(a.fallback),
            mimeType: a.mime_type ?? kindMime(str(a.type), url),
            size: a.file_size,
          })
        : undefined;
    if (file !== undefined) files.push(file);
    else if (isCustom(a, url)) custom.push({ type: str(a.type) ?? 'custom', data: a });
    else if (a.og_scrape_url === undefined && UPLOAD_KINDS.has(str(a.type) ?? '') && str(a.title_link) === undefined)
      gone.push(str(a.title) ?? str(a.fallback) ?? str(a.type) ?? 'file');
    else
      links.push(
        compact({
          url: str(a.og_scrape_url) ?? str(a.title_link) ?? url,
          title: str(a.title),
          text: str(a.text),
          type: str(a.type),
        }),
      );
  }
  // When the export has no time for a message, its first reaction says it existed by then.
  const reacted = reactions
    ?.map((r) => r.at)
    .filter((t): t is number => t !== undefined)
    .sort((a, b) => a - b)[0];
  const sentAt = seconds(m.created_at) ?? reacted ?? channel.createdAt ?? sentSeconds(m.created_at);
  const sentAtFrom =
    seconds(m.created_at) !== undefined
      ? undefined
      : reacted !== undefined
        ? 'first-reaction'
        : channel.createdAt !== undefined
          ? 'channel-created'
          : undefined;
  const mentioned = (
    Array.isArray(m.mentioned_users)
      ? m.mentioned_users
      : Array.isArray(m.mentioned_users_ids)
        ? m.mentioned_users_ids
        : []
  )
    .map((u) => ({ id: idOf(u), name: isObject(u) ? str(u.name) : undefined }))
    .filter((u): u is { id: string; name: string | undefined } => u.id !== undefined);
  // Stream's apps write a mention as `@name` (or `@id`) in the text and list the user in mentioned_users.
  const mentions = placeMentions(
    str(m.text),
    atNameTokens(mentioned.map((u) => ({ uid: ctx.uids.of(u.id), names: [u.name ?? ctx.names.get(u.id), u.id] }))),
  );
  const deleted = type === 'deleted' || seconds(m.deleted_at) !== undefined;
  const built = messageRecord({
    muid: ctx.muids.of(str(m.id) ?? ''),
    muids: ctx.muids,
    sourceId: str(m.id) ?? '',
    sender: senderId === undefined ? ctx.options.systemUser : ctx.uids.of(senderId),
    conversation: channel.conversation,
    sentAt,
    text: str(m.text),
    mentions,
    attachments: files,
    custom,
    placeholder: gone.length > 0 ? `[file: ${gone.join(', ')}]` : undefined,
    metadata: {
      streamType: type === 'regular' ? undefined : type,
      filesUnavailable: gone,
      parentId: str(m.parent_id) && ctx.muids.of(String(m.parent_id)),
      showInChannel: m.show_in_channel === true || undefined,
      quotedMessageId: str(m.quoted_message_id) && ctx.muids.of(String(m.quoted_message_id)),
      reactions: reactionSummary(m, reactions, ctx),
      // Mentioned users the text does not name: kept, since no template can show them.
      mentions: mentioned.map((u) => ctx.uids.of(u.id)).filter((uid) => !mentions?.users.some((p) => p.uid === uid)),
      pinned: m.pinned === true || m.pinned_at ? true : undefined,
      links,
      sentAtFrom,
      custom: extras(m, MESSAGE_FIELDS),
    },
    deletedAt: deleted ? (seconds(m.deleted_at) ?? seconds(m.updated_at) ?? sentAt) : undefined,
  });
  let skip = built.skip;
  if (str(m.id) === undefined) skip = SKIP.noId;
  else if (type === 'error' || type === 'ephemeral') skip = SKIP.ephemeral;
  else if (type !== 'system' && senderId === undefined) skip = SKIP.noSender;
  const out: { value: JsonObject; skip?: string; more: JsonObject[]; senderId?: string } = {
    value: built.value,
    more: built.more,
  };
  if (skip !== undefined) out.skip = skip;
  if (senderId !== undefined) out.senderId = senderId;
  return out;
}

const UPLOAD_KINDS = new Set(['file', 'image', 'video', 'audio', 'voiceRecording']);
const MEDIA_KINDS = new Set([...UPLOAD_KINDS, 'giphy', 'link', 'imgur']);

/** An app's own attachment (a product card): no file, no link, a type of its own; kept whole as a custom message. */
function isCustom(a: JsonObject, url: string | undefined): boolean {
  return (
    url === undefined &&
    a.og_scrape_url === undefined &&
    str(a.title_link) === undefined &&
    !MEDIA_KINDS.has(str(a.type) ?? '')
  );
}

function kindMime(kind: string | undefined, url: string | undefined): string | undefined {
  if (kind !== 'image' && kind !== 'video' && kind !== 'audio' && kind !== 'giphy') return undefined;
  const known = mimeOf(url?.split(/[?#]/)[0].split('/').pop()?.split('.').pop());
  if (known !== undefined) return known;
  return kind === 'video'
    ? 'video/mp4'
    : kind === 'audio'
      ? 'audio/mpeg'
      : kind === 'giphy'
        ? 'image/gif'
        : 'image/jpeg';
}

/** Per reaction type: count and who (the export's latest_reactions, or the import file's reaction items). */
function reactionSummary(
  m: JsonObject,
  seen: ReactionSeen[] | undefined,
  ctx: PresetContext,
): JsonObject[] | undefined {
  const list: ReactionSeen[] =
    seen ??
    (Array.isArray(m.latest_reactions)
      ? m.latest_reactions
          .filter(isObject)
          .map((r) => ({ type: str(r.type) ?? '', user: idOf(r.user_id) ?? idOf(r.user) }))
      : []);
  const counts = isObject(m.reaction_counts) ? m.reaction_counts : {};
  const byType = new Map<string, { count: number; users: string[] }>();
  for (const r of list) {
    const entry = byType.get(r.type) ?? { count: 0, users: [] };
    entry.count++;
    if (r.user !== undefined) entry.users.push(ctx.uids.of(r.user));
    byType.set(r.type, entry);
  }
  for (const [t, n] of Object.entries(counts))
    if (typeof n === 'number') byType.set(t, { count: n, users: byType.get(t)?.users ?? [] });
  return byType.size === 0
    ? undefined
    : [...byType].map(([t, e]) => compact({ type: t, count: e.count, users: e.users }));
}
