/**
 * The fake world in Twilio Conversations' shapes (snake_case, as the REST API answers; twilio-node's
 * `ServiceResource`, `UserResource`, `ConversationResource`, `ParticipantResource`, `MessageResource`):
 * SIDs are a two-letter prefix and 32 hex digits, made from the world's ids, dates ISO-8601 to the second.
 */
import { createHash } from 'node:crypto';
import type { FakeAttachment, FakeChannel, FakeMember, FakeMessage, FakeUser } from './types.js';

/** `CH` + 32 hex digits, the same for the same id every time. */
export function sidOf(prefix: string, id: string): string {
  if (new RegExp(`^${prefix}[0-9a-f]{32}$`).test(id)) return id;
  return `${prefix}${createHash('md5').update(id).digest('hex')}`;
}

export const ACCOUNT_SID = sidOf('AC', 'chat-migrate-fake-account');
export const SERVICE_SID = sidOf('IS', 'chat-migrate-fake-service');
const ADMIN_ROLE = sidOf('RL', 'channel admin');
const USER_ROLE = sidOf('RL', 'channel user');

const iso = (ms: number) => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
const api = (origin: string, path: string) => `${origin}/v1/Services/${SERVICE_SID}${path}`;

export function serviceShape(origin: string, createdMs: number) {
  return {
    account_sid: ACCOUNT_SID,
    sid: SERVICE_SID,
    friendly_name: 'Default Conversations Service',
    date_created: iso(createdMs),
    date_updated: iso(createdMs),
    url: `${origin}/v1/Services/${SERVICE_SID}`,
    links: { conversations: api(origin, '/Conversations'), users: api(origin, '/Users') },
  };
}

export function userShape(origin: string, u: FakeUser) {
  const sid = sidOf('US', u.id);
  const attributes: Record<string, unknown> = {};
  if (u.avatarUrl) attributes.avatar_url = `${origin}${u.avatarUrl}`;
  if (u.bot) attributes.bot = true;
  if (u.deactivated) attributes.deactivated = true;
  return {
    sid,
    account_sid: ACCOUNT_SID,
    chat_service_sid: SERVICE_SID,
    role_sid: USER_ROLE,
    identity: u.id,
    friendly_name: u.name,
    attributes: JSON.stringify(attributes),
    is_online: null,
    is_notifiable: null,
    date_created: iso(u.createdAtMs),
    date_updated: iso(u.updatedAtMs),
    url: api(origin, `/Users/${sid}`),
    links: { user_conversations: api(origin, `/Users/${sid}/Conversations`) },
  };
}

export function conversationShape(origin: string, c: FakeChannel) {
  const sid = sidOf('CH', c.id);
  return {
    account_sid: ACCOUNT_SID,
    chat_service_sid: SERVICE_SID,
    messaging_service_sid: sidOf('MG', 'chat-migrate-fake-messaging'),
    sid,
    // Apps address a conversation by its unique name: the world's id (a direct one has none).
    friendly_name: c.kind === 'direct' ? null : c.name,
    unique_name: c.kind === 'direct' ? null : c.id,
    attributes: JSON.stringify({ kind: c.kind }),
    state: 'active',
    date_created: iso(c.createdAtMs),
    date_updated: iso(c.updatedAtMs),
    timers: {},
    url: api(origin, `/Conversations/${sid}`),
    links: {
      participants: api(origin, `/Conversations/${sid}/Participants`),
      messages: api(origin, `/Conversations/${sid}/Messages`),
      webhooks: api(origin, `/Conversations/${sid}/Webhooks`),
    },
    bindings: null,
  };
}

export function participantShape(origin: string, c: FakeChannel, m: FakeMember) {
  const sid = sidOf('MB', `${c.id}/${m.userId}`);
  const conversation = sidOf('CH', c.id);
  return {
    account_sid: ACCOUNT_SID,
    chat_service_sid: SERVICE_SID,
    conversation_sid: conversation,
    sid,
    identity: m.userId,
    attributes: '{}',
    messaging_binding: null,
    role_sid: m.role === 'admin' ? ADMIN_ROLE : USER_ROLE,
    date_created: iso(m.joinedAtMs),
    date_updated: iso(m.joinedAtMs),
    url: api(origin, `/Conversations/${conversation}/Participants/${sid}`),
    last_read_message_index: null,
    last_read_timestamp: null,
  };
}

/** Twilio has no threads: a reply is a message like any other (its parent named in its attributes). */
export function messageShape(origin: string, m: FakeMessage, index: number, parentSid?: string) {
  const sid = sidOf('IM', m.id);
  const conversation = sidOf('CH', m.channelId);
  return {
    account_sid: ACCOUNT_SID,
    chat_service_sid: SERVICE_SID,
    conversation_sid: conversation,
    sid,
    index,
    author: m.senderId,
    body: m.text === '' ? null : m.text,
    media: m.attachments.length === 0 ? null : m.attachments.map(mediaOfMessage),
    attributes: parentSid === undefined ? '{}' : JSON.stringify({ replyTo: parentSid }),
    participant_sid: sidOf('MB', `${m.channelId}/${m.senderId}`),
    date_created: iso(m.sentAtMs),
    date_updated: iso(m.editedAtMs ?? m.sentAtMs),
    delivery: null,
    content_sid: null,
    url: api(origin, `/Conversations/${conversation}/Messages/${sid}`),
    links: {
      delivery_receipts: api(origin, `/Conversations/${conversation}/Messages/${sid}/Receipts`),
      channel_metadata: api(origin, `/Conversations/${conversation}/Messages/${sid}/ChannelMetadata`),
    },
  };
}

/** A message's media item: what the Message resource lists (no link: the bytes are on the MCS). */
function mediaOfMessage(a: FakeAttachment) {
  return { sid: sidOf('ME', a.id), category: 'media', filename: a.name, content_type: a.contentType, size: a.size };
}

/** The Media resource of the Media Content Service (Twilio's Conversations Media Resource page). */
export function mediaResourceShape(origin: string, a: FakeAttachment, m: FakeMessage, temporaryUrl: string) {
  const sid = sidOf('ME', a.id);
  const path = `/v1/Services/${SERVICE_SID}/Media/${sid}`;
  return {
    sid,
    account_sid: ACCOUNT_SID,
    service_sid: SERVICE_SID,
    date_created: iso(m.sentAtMs),
    date_upload_completed: iso(m.sentAtMs),
    date_updated: iso(m.sentAtMs),
    channel_sid: sidOf('CH', m.channelId),
    message_sid: sidOf('IM', m.id),
    author: m.senderId,
    size: a.size,
    content_type: a.contentType,
    filename: a.name,
    category: 'media',
    is_multipart_upstream: false,
    url: `${origin}${path}`,
    links: { content: `${path}/Content`, content_direct_temporary: temporaryUrl },
  };
}
