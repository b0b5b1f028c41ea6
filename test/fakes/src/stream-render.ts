/**
 * The fake world in Stream Chat's shapes (stream-chat-js src/types.ts: UserResponse, ChannelResponse,
 * ChannelMemberResponse, MessageResponse). Stream's attachment links point at its CDN, signed and
 * expiring (CloudFront-style `Expires` and `Signature`); the fake signs them with its own secret.
 */
import { createHash, createHmac } from 'node:crypto';
import type { FakeAttachment, FakeChannel, FakeMember, FakeMessage, FakeReply, FakeUser, FakeWorld } from './types.js';

type Json = Record<string, unknown>;

export const iso = (ms: number) => new Date(ms).toISOString();

/** Where the fake's CDN serves attachment bytes. */
export const CDN_PATH = '/stream-cdn/';

/** How long a signed link lives unless the test says (`linkTtlMs`): Stream's own are hours to days. */
export const DEFAULT_LINK_TTL_MS = 3_600_000;

export function linkSignature(secret: string, attachmentId: string, expiresSec: number): string {
  return createHmac('sha256', secret).update(`${attachmentId}:${expiresSec}`).digest('base64url').slice(0, 32);
}

/** A channel's Stream type and id: distinct channels (direct, group DMs) get Stream's `!members-` ids. */
export function channelIdentity(c: FakeChannel): { type: string; id: string; cid: string } {
  const type = c.kind === 'public' ? 'livestream' : 'messaging';
  const id =
    c.kind === 'direct' || c.kind === 'group-direct'
      ? `!members-${createHash('sha1')
          .update(
            c.members
              .map((m) => m.userId)
              .sort()
              .join(','),
          )
          .digest('base64url')
          .slice(0, 22)}`
      : c.id;
  return { type, id, cid: `${type}:${id}` };
}

/** A user as Stream's UserResponse carries one (in messages, members, channels): the fields it requires. */
function userResponse(u: FakeUser): Json {
  const out: Json = {
    id: u.id,
    name: u.name,
    custom: {},
    language: 'en',
    role: u.bot ? 'admin' : 'user',
    teams: [],
    created_at: iso(u.createdAtMs),
    updated_at: iso(u.updatedAtMs),
    banned: false,
    online: false,
    blocked_user_ids: [],
    shadow_banned: false,
    invisible: false,
  };
  if (u.avatarUrl !== undefined) out.image = u.avatarUrl;
  if (u.deactivated) out.deactivated_at = iso(u.updatedAtMs);
  return out;
}

/** A user as Query Users lists one (FullUserResponse): UserResponse and the user's own counts. */
export function renderUser(u: FakeUser): Json {
  const unread = { unread_count: 0, total_unread_count: 0, unread_channels: 0, unread_threads: 0 };
  return { ...userResponse(u), devices: [], mutes: [], channel_mutes: [], ...unread };
}

const userRef = (world: FakeWorld, id: string): Json => {
  const u = world.user(id);
  return userResponse(u ?? { id, name: id, createdAtMs: 0, updatedAtMs: 0 });
};

export function renderChannel(c: FakeChannel, world: FakeWorld): Json {
  const { type, id, cid } = channelIdentity(c);
  const out: Json = {
    id,
    type,
    cid,
    created_at: iso(c.createdAtMs),
    updated_at: iso(c.updatedAtMs),
    created_by: userRef(world, c.creatorId),
    frozen: false,
    disabled: false,
    custom: {},
    member_count: c.members.length,
  };
  if (c.kind === 'public' || c.kind === 'private') out.name = c.name;
  return out;
}

export function renderMember(m: FakeMember, c: FakeChannel, world: FakeWorld): Json {
  const owner = m.userId === c.creatorId;
  return {
    user_id: m.userId,
    user: userRef(world, m.userId),
    created_at: iso(m.joinedAtMs),
    updated_at: iso(m.joinedAtMs),
    role: owner ? 'owner' : m.role === 'admin' ? 'admin' : 'member',
    channel_role: m.role === 'admin' ? 'channel_admin' : 'channel_member',
    custom: {},
    banned: false,
    shadow_banned: false,
    notifications_muted: false,
  };
}

export interface LinkSigner {
  origin: string;
  secret: string;
  nowMs: number;
  ttlMs: number;
}

function renderAttachment(a: FakeAttachment, sign: LinkSigner): Json {
  const expires = Math.floor((sign.nowMs + sign.ttlMs) / 1000);
  const url =
    `${sign.origin}${CDN_PATH}${encodeURIComponent(a.id)}/${encodeURIComponent(a.name)}` +
    `?Expires=${expires}&Signature=${linkSignature(sign.secret, a.id, expires)}`;
  return a.contentType.startsWith('image/')
    ? { type: 'image', image_url: url, fallback: a.name, mime_type: a.contentType, file_size: a.size, custom: {} }
    : { type: 'file', asset_url: url, title: a.name, mime_type: a.contentType, file_size: a.size, custom: {} };
}

export function renderMessage(m: FakeMessage, cid: string, replies: number, world: FakeWorld, sign: LinkSigner): Json {
  const out: Json = {
    id: m.id,
    text: m.text,
    html: `<p>${m.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>\n`,
    type: m.parentId === undefined ? 'regular' : 'reply',
    user: userRef(world, m.senderId),
    attachments: m.attachments.map((a) => renderAttachment(a, sign)),
    latest_reactions: [],
    own_reactions: [],
    reaction_counts: {},
    reaction_scores: {},
    reply_count: replies,
    deleted_reply_count: 0,
    cid,
    created_at: iso(m.sentAtMs),
    updated_at: iso(m.editedAtMs ?? m.sentAtMs),
    mentioned_users: m.mentions.map((id) => userRef(world, id)),
    mentioned_channel: false,
    mentioned_here: false,
    custom: {},
    shadowed: false,
    silent: false,
    pinned: false,
    restricted_visibility: [],
  };
  if (m.parentId !== undefined) {
    out.parent_id = m.parentId;
    out.show_in_channel = false;
  }
  return out;
}

/** Stream's error body (its APIError): `{code, message, StatusCode, duration, more_info, details}`. */
export function streamError(status: number, code: number, message: string): FakeReply {
  return {
    status,
    body: {
      code,
      message,
      StatusCode: status,
      duration: '0.00ms',
      more_info: 'https://getstream.io/chat/docs/api_errors_response',
      details: [],
    },
  };
}
