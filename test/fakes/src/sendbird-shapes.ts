/**
 * The fake world in Sendbird Platform API v3's shapes: users, group and open channels, members and
 * messages as the API reference writes them (channel and user times in seconds, messages' in ms).
 */
import type { FakeChannel, FakeMessage, FakeUser, FakeWorld } from './types.js';

export type Json = Record<string, unknown>;

/**
 * The world's first public channel is served as an open channel (Sendbird's other kind: no members,
 * only operators), so a pull meets both kinds; every other channel is a group channel.
 */
export function isOpen(world: FakeWorld, channel: FakeChannel): boolean {
  return channel.kind === 'public' && world.channels.find((c) => c.kind === 'public')?.id === channel.id;
}

/** How many members a group channel object of the list shows; the rest are on the members route. */
export const LISTED_MEMBERS = 10;

const seconds = (ms: number) => Math.floor(ms / 1000);

export function userObject(user: FakeUser): Json {
  return {
    user_id: user.id,
    nickname: user.name,
    profile_url: user.avatarUrl ?? '',
    is_active: user.deactivated !== true,
    is_online: false,
    created_at: seconds(user.createdAtMs),
    last_seen_at: user.updatedAtMs,
    has_ever_logged_in: true,
    preferred_languages: [],
    metadata: {},
  };
}

function shortUser(world: FakeWorld, id: string): Json {
  const user = world.user(id);
  return { user_id: id, nickname: user?.name ?? id, profile_url: user?.avatarUrl ?? '' };
}

export function memberObject(world: FakeWorld, member: FakeChannel['members'][number]): Json {
  return {
    ...shortUser(world, member.userId),
    role: member.role === 'admin' ? 'operator' : '',
    state: 'joined',
    is_online: false,
    is_muted: false,
  };
}

export function groupChannelObject(world: FakeWorld, channel: FakeChannel, showMembers: boolean): Json {
  const distinct = channel.kind === 'direct' || channel.kind === 'group-direct';
  const out: Json = {
    channel_url: channel.id,
    name: distinct ? '' : channel.name,
    cover_url: '',
    custom_type: '',
    data: '',
    is_distinct: distinct,
    is_public: channel.kind === 'public',
    is_super: false,
    is_broadcast: false,
    is_ephemeral: false,
    freeze: false,
    member_count: channel.members.length,
    joined_member_count: channel.members.length,
    created_at: seconds(channel.createdAtMs),
    created_by: shortUser(world, channel.creatorId),
  };
  if (showMembers) out.members = channel.members.slice(0, LISTED_MEMBERS).map((m) => memberObject(world, m));
  return out;
}

export function openChannelObject(world: FakeWorld, channel: FakeChannel): Json {
  const operators = channel.members.filter((m) => m.role === 'admin').map((m) => shortUser(world, m.userId));
  return {
    channel_url: channel.id,
    name: channel.name,
    cover_url: '',
    custom_type: '',
    data: '',
    participant_count: 0,
    max_length_message: -1,
    freeze: false,
    is_ephemeral: false,
    is_dynamic_partitioned: false,
    operators: operators.length > 0 ? operators : [shortUser(world, channel.creatorId)],
    created_at: seconds(channel.createdAtMs),
  };
}

/** Sendbird message ids are numbers: the world's when they read as one exactly. */
export const messageIdOf = (m: { id: string }) =>
  /^\d+$/.test(m.id) && Number.isSafeInteger(Number(m.id)) ? Number(m.id) : m.id;

export function messageObject(world: FakeWorld, m: FakeMessage, origin: string, open: boolean): Json {
  const files = m.attachments.map((a) => ({
    url: `${origin}${a.path}`,
    name: a.name,
    type: a.contentType,
    size: a.size,
    require_auth: false,
  }));
  const out: Json = {
    type: files.length > 0 ? 'FILE' : 'MESG',
    message_id: messageIdOf(m),
    message: m.text,
    channel_url: m.channelId,
    channel_type: open ? 'open' : 'group',
    created_at: m.sentAtMs,
    updated_at: m.editedAtMs ?? 0,
    user: shortUser(world, m.senderId),
    custom_type: '',
    data: '',
    mention_type: 'users',
    mentioned_users: m.mentions.map((id) => shortUser(world, id)),
    parent_message_id: m.parentId === undefined ? 0 : messageIdOf({ id: m.parentId }),
    is_removed: false,
    is_reply_to_channel: false,
  };
  if (files.length === 1) out.file = files[0];
  else if (files.length > 1) out.files = files;
  return out;
}
