/**
 * Mattermost bulk export lines (`mmctl export create`) -> records. The format names everything by
 * name, not by id: users by username, channels by team and channel name, direct channels by their
 * members, posts by channel, author and `create_at` (milliseconds), which is what their ids are
 * made of here (with the content's hash when one author wrote two posts there in one millisecond).
 * Replies ride inside their root post's line.
 */
import path from 'node:path';
import type { JsonObject } from '../../entities/types.js';
import { contentHash } from '../../rules/index.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { isObject } from '../shared/items.js';
import {
  attachment,
  compact,
  mediaUrl,
  mimeOf,
  seconds,
  sentSeconds,
  str,
  type Attachment,
} from '../shared/message-parts.js';
import { userRecord, type MemberInput } from '../shared/records.js';
import { placeMentions, type MentionToken } from '../shared/mentions.js';
import { messageRecord } from '../shared/message-record.js';

const JOIN_LEAVE = new Set([
  'system_join_channel',
  'system_leave_channel',
  'system_join_team',
  'system_leave_team',
  'system_add_to_channel',
  'system_remove_from_channel',
  'system_add_to_team',
  'system_remove_from_team',
]);

/** Where a post was written, as the preset resolved it. */
export interface MattermostPlace {
  /** Source of the posts' ids: `team:channel`, or `dm:alice,bob` for a direct channel. */
  key: string;
  conversation: Conversation;
}

/** A channel's source id: its team and name (channel names are unique within a team only). */
export const channelKey = (team: string, channel: string): string => `${team}:${channel}`;
/** A direct channel's source id: its members, sorted, each once. */
export const directKey = (members: readonly string[]): string => `dm:${members.join(',')}`;

/** Usernames of a direct channel (`members`, or newer exports' `participants[].username`), sorted, each once. */
export function directMembers(value: JsonObject): string[] {
  const listed = Array.isArray(value.members)
    ? value.members
    : Array.isArray(value.channel_members)
      ? value.channel_members
      : Array.isArray(value.participants)
        ? value.participants.map((p) => (isObject(p) ? p.username : undefined))
        : [];
  return [...new Set(listed.map(str).filter((x): x is string => x !== undefined))].sort();
}

const roles = (v: unknown): string[] => (str(v) ?? '').split(/\s+/).filter(Boolean);

/** channel_admin -> admin; team_admin or system_admin -> moderator; anyone else -> participant. */
export function scopeOf(channelRoles: unknown, teamRoles: unknown, userRoles: unknown): MemberInput['scope'] {
  if (roles(channelRoles).includes('channel_admin')) return 'admin';
  if (roles(teamRoles).includes('team_admin') || roles(userRoles).includes('system_admin')) return 'moderator';
  return 'participant';
}

/** A file's path relative to the folder holding the JSONL file: under its `data/` folder. */
export function dataPath(file: string): string {
  const clean = file.replace(/\\/g, '/').replace(/^\.?\//, '');
  return clean.startsWith('data/') ? clean : `data/${clean}`;
}

export function mapMattermostUser(u: JsonObject, bot: boolean, ctx: PresetContext): JsonObject {
  const username = str(u.username) ?? '';
  const full = [str(u.first_name), str(u.last_name)].filter(Boolean).join(' ');
  const image = str(u.profile_image);
  return userRecord({
    uid: ctx.uids.of(username),
    name: (bot ? str(u.display_name) : undefined) ?? (full || str(u.nickname)),
    fallbackName: username,
    avatar: image === undefined ? undefined : mediaUrl(dataPath(image), ctx.options.mediaBaseUrl),
    deactivatedAt: seconds(u.delete_at),
    metadata: {
      username,
      nickname: str(u.nickname),
      position: str(u.position),
      roles: str(u.roles),
      locale: str(u.locale),
      authService: str(u.auth_service),
      isBot: bot || undefined,
      owner: bot && str(u.owner) ? ctx.uids.of(str(u.owner)!) : undefined,
      description: bot ? str(u.description) : undefined,
    },
  });
}

export interface MappedPost {
  value: JsonObject;
  skip?: string;
  more?: JsonObject[];
}

/** Who a post may mention: the export's users and bots, by username. */
export interface PostPeople {
  bots: ReadonlySet<string>;
  usernames: ReadonlySet<string>;
  /** Moments (place, ms, author) the export has more than one post of -> the first one's content hash. */
  sameMoment: ReadonlyMap<string, number>;
}

// Mattermost usernames: lower-case letters, digits, `.`, `-` and `_`; a mention is `@` + one of them.
const AT_USERNAME = /@([a-z0-9][a-z0-9._-]*)/gi;

/** `@username` tokens in a post's text for users the export has (a trailing dot ends a sentence). */
function usernameTokens(text: string | undefined, people: PostPeople, ctx: PresetContext): MentionToken[] {
  if (text === undefined || !text.includes('@')) return [];
  const out: MentionToken[] = [];
  for (const match of text.matchAll(AT_USERNAME)) {
    const name = match[1].toLowerCase().replace(/\.+$/, '');
    if (!people.usernames.has(name)) continue;
    out.push({ token: `@${match[1].replace(/\.+$/, '')}`, uid: ctx.uids.of(name), name: ctx.names.get(name) ?? name });
  }
  return out;
}

/** A post (or direct post) line: the post, then its replies, each a message. */
export function mapMattermostPost(
  p: JsonObject,
  place: MattermostPlace,
  people: PostPeople,
  ctx: PresetContext,
): MappedPost[] {
  const root = mapOne(p, place, people, ctx, undefined);
  const replies = Array.isArray(p.replies) ? p.replies.filter(isObject) : [];
  const parent = root.value.muid as string;
  return [root, ...replies.map((r) => mapOne(r, place, people, ctx, parent))];
}

/** Where, when (ms) and by whom: what the format itself treats as a post's identity. */
export const postMoment = (place: MattermostPlace, p: JsonObject): string =>
  `${place.key}:${str(p.create_at) ?? ''}:${str(p.user) ?? ''}`;

/** What tells apart two posts of one moment: their text and files (reactions and replies come later). */
export const postContent = (p: JsonObject): number => contentHash([str(p.message) ?? '', p.attachments ?? null]);

/**
 * A post's muid: its moment, so ids stay what they were for every post alone in its millisecond. A
 * later post of a shared moment whose content differs from the first's gets that content's hash after
 * it, the same on every run over the export; one with the first's content is the same post twice.
 */
export function postId(place: MattermostPlace, p: JsonObject, sameMoment: ReadonlyMap<string, number>): string {
  const moment = postMoment(place, p);
  const first = sameMoment.get(moment);
  if (first === undefined) return moment;
  const content = postContent(p);
  return content === first ? moment : `${moment}:${content.toString(16).padStart(8, '0')}`;
}

function mapOne(
  p: JsonObject,
  place: MattermostPlace,
  people: PostPeople,
  ctx: PresetContext,
  parent: string | undefined,
): MappedPost {
  const user = str(p.user);
  const type = str(p.type);
  const files = (Array.isArray(p.attachments) ? p.attachments.filter(isObject) : [])
    .map((a) => str(a.path))
    .filter((x): x is string => x !== undefined);
  const attachments: Attachment[] = [];
  const unavailable: Array<{ name: string; path: string }> = [];
  for (const file of files) {
    const rel = dataPath(file);
    const name = path.posix.basename(rel);
    const a = attachment({
      url: mediaUrl(rel, ctx.options.mediaBaseUrl),
      name,
      mimeType: mimeOf(name.split('.').pop()),
    });
    if (a !== undefined) attachments.push(a);
    else unavailable.push({ name, path: rel });
  }
  const sentAt = sentSeconds(p.create_at);
  const editedAt = seconds(p.edit_at);
  // update_at moves on any change (a reaction too): kept apart from a real edit.
  const updatedAt = editedAt === undefined && seconds(p.update_at) !== sentAt ? seconds(p.update_at) : undefined;
  const replies = Array.isArray(p.replies) ? p.replies.length : 0;
  const built = messageRecord({
    muid: ctx.muids.of(postId(place, p, people.sameMoment)),
    muids: ctx.muids,
    sourceId: postId(place, p, people.sameMoment),
    sender: user === undefined ? ctx.options.systemUser : ctx.uids.of(user),
    conversation: place.conversation,
    sentAt,
    text: str(p.message),
    mentions: placeMentions(str(p.message), usernameTokens(str(p.message), people, ctx)),
    attachments,
    placeholder: unavailable.length > 0 ? `[file: ${unavailable.map((f) => f.name).join(', ')}]` : undefined,
    metadata: {
      mattermostType: type,
      threadParent: parent,
      replyCount: replies > 0 ? replies : undefined,
      reactions: reactionsOf(p.reactions, ctx),
      editedAt,
      updatedAt,
      pinned: p.is_pinned === true || undefined,
      props: isObject(p.props) ? p.props : undefined,
      files: unavailable,
    },
    deletedAt: seconds(p.delete_at),
  });
  let skip = built.skip;
  if (type !== undefined && JOIN_LEAVE.has(type) && !ctx.options.includeJoinLeave) skip = SKIP.joinLeave;
  else if (user === undefined) skip = SKIP.noSender;
  else if (people.bots.has(user) && !ctx.options.includeBots) skip = SKIP.bot;
  return skip === undefined ? { value: built.value, more: built.more } : { value: built.value, skip, more: built.more };
}

/** One entry per emoji (skin tones are other names: `+1_skin-tone-3`), its users in order. */
function reactionsOf(list: unknown, ctx: PresetContext): JsonObject[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const byEmoji = new Map<string, { users: string[]; firstAt?: number }>();
  for (const r of list.filter(isObject)) {
    const emoji = str(r.emoji_name);
    if (emoji === undefined) continue;
    const entry = byEmoji.get(emoji) ?? { users: [], firstAt: seconds(r.create_at) };
    if (!byEmoji.has(emoji)) byEmoji.set(emoji, entry);
    if (str(r.user)) entry.users.push(ctx.uids.of(str(r.user)!));
  }
  return [...byEmoji].map(([emoji, e]) =>
    compact({ emoji, count: e.users.length, users: e.users, firstAt: e.firstAt }),
  );
}
