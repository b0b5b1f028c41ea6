/**
 * Twilio Conversations items -> records. Fields are read in both spellings (`field()`). People are
 * named by `identity` (Conversations SDK users) or, for SMS/WhatsApp participants, which have none,
 * by their `messaging_binding.address`; a message's `author` is the one or the other, so both meet.
 */
import type { JsonObject } from '../../entities/types.js';
import type { Conversation, PresetContext } from '../shared/context.js';
import { isObject } from '../shared/items.js';
import { attachment, compact, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import { groupRecord, joinedAfter, memberRecord, userRecord } from '../shared/records.js';
import { messageRecord } from '../shared/message-record.js';
import { field } from './read.js';

/**
 * Twilio's Media Content Service: a message's media is the Media resource `.../Media/{sid}`, whose
 * `/Content` answers its bytes (through a redirect to a temporary link) with HTTP Basic auth.
 */
export const MCS_BASE = 'https://mcs.us1.twilio.com/v1';
/** Twilio's own author of messages the API created without one. */
const SYSTEM_AUTHOR = 'system';
export const SKIP_NO_IDENTITY = 'no-identity';

export interface TwilioConversation {
  sid: string;
  /** Its guid: from its uniqueName, which apps address it by, else from its sid. */
  guid: string;
  createdAt?: number;
  chatServiceSid?: string;
  conversation: Conversation;
}

/** `attributes` is JSON text: its object, or the text itself when it is not JSON ("{}" says nothing). */
export function attributesOf(o: JsonObject): unknown {
  const raw = field(o, 'attributes');
  if (isObject(raw)) return raw;
  if (typeof raw !== 'string' || raw.trim() === '' || raw.trim() === '{}') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) || Array.isArray(parsed) ? parsed : raw;
  } catch {
    return raw;
  }
}

function binding(p: JsonObject): JsonObject | undefined {
  const b = field(p, 'messaging_binding');
  return isObject(b) ? b : undefined;
}

/** The person a participant is: its identity, else its address (`+15551230001`, `whatsapp:+...`). */
export function participantId(p: JsonObject): string | undefined {
  const b = binding(p);
  return str(field(p, 'identity')) ?? (b === undefined ? undefined : str(field(b, 'address')));
}

/** What a participant without a users-list entry tells of itself, for its user record. */
export function participantPerson(p: JsonObject): { name?: string; metadata?: Record<string, unknown> } {
  const b = binding(p);
  if (str(field(p, 'identity')) !== undefined || b === undefined) return {};
  return {
    name: str(field(b, 'address')),
    metadata: { channel: str(b.type), proxyAddress: str(field(b, 'proxy_address')) },
  };
}

export function mapTwilioUser(u: JsonObject, ctx: PresetContext): JsonObject {
  const identity = str(field(u, 'identity')) ?? '';
  return userRecord({
    uid: ctx.uids.of(identity),
    name: str(field(u, 'friendly_name')),
    fallbackName: identity,
    createdAt: seconds(field(u, 'date_created')),
    metadata: {
      twilioIdentity: identity,
      twilioSid: str(field(u, 'sid')),
      attributes: attributesOf(u),
      roleSid: str(field(u, 'role_sid')),
    },
  });
}

/** The source id a conversation's guid comes from: its uniqueName when it has one, else its sid. */
export const conversationKey = (c: JsonObject): string => str(field(c, 'unique_name')) ?? str(field(c, 'sid')) ?? '';

/** `owner`: the source id of its first participant (Twilio records no creator), if any. */
export function mapTwilioConversation(c: JsonObject, owner: string | undefined, ctx: PresetContext): JsonObject {
  const sid = str(field(c, 'sid')) ?? '';
  return groupRecord({
    guid: ctx.guids.of(conversationKey(c)),
    name: str(field(c, 'friendly_name')) ?? str(field(c, 'unique_name')),
    fallbackName: sid,
    type: 'private',
    owner: owner && ctx.uids.of(owner),
    createdAt: seconds(field(c, 'date_created')),
    metadata: {
      twilioSid: sid,
      uniqueName: str(field(c, 'unique_name')),
      state: str(field(c, 'state')),
      attributes: attributesOf(c),
      chatServiceSid: str(field(c, 'chat_service_sid')),
      messagingServiceSid: str(field(c, 'messaging_service_sid')),
    },
  });
}

/** `group`: the participant's conversation as a group (its guid and creation time). */
export function mapTwilioParticipant(
  p: JsonObject,
  group: { guid: string; createdAt?: number },
  ctx: PresetContext,
): { value: JsonObject; skip?: string } {
  const id = participantId(p);
  const value = memberRecord({
    guid: group.guid,
    uid: ctx.uids.of(id ?? str(field(p, 'sid')) ?? ''),
    scope: 'participant',
    joinedAt: joinedAfter(seconds(field(p, 'date_created')), group.createdAt),
  });
  return id === undefined ? { value, skip: SKIP_NO_IDENTITY } : { value };
}

/** The author as a source id, or undefined for Twilio's `system` (and a message without author). */
export function authorOf(m: JsonObject): string | undefined {
  const author = str(field(m, 'author'));
  return author === undefined || author === SYSTEM_AUTHOR ? undefined : author;
}

/**
 * Where `pull` said a media item's bytes are (`links.content`: its Media resource's `/Content` on the
 * Media Content Service it was pointed at); the API's own message media carry no link.
 */
function contentLink(item: JsonObject): string | undefined {
  const links = field(item, 'links');
  const content = isObject(links) ? str(links.content) : undefined;
  return content !== undefined && /^https?:\/\//i.test(content) ? content : undefined;
}

export function mapTwilioMessage(
  m: JsonObject,
  where: TwilioConversation,
  ctx: PresetContext,
): { value: JsonObject; skip?: string; more: JsonObject[] } {
  const author = authorOf(m);
  const service = str(field(m, 'chat_service_sid')) ?? where.chatServiceSid;
  const media = (Array.isArray(m.media) ? m.media : []).filter(isObject);
  const attachments: Attachment[] = [];
  const unavailable: JsonObject[] = [];
  for (const item of media) {
    const mediaSid = str(field(item, 'sid'));
    const a = attachment({
      url:
        contentLink(item) ??
        (service && mediaSid ? `${MCS_BASE}/Services/${service}/Media/${mediaSid}/Content` : undefined),
      name: field(item, 'filename'),
      mimeType: field(item, 'content_type'),
      size: field(item, 'size'),
    });
    if (a !== undefined) attachments.push(a);
    else unavailable.push(compact({ sid: mediaSid, filename: str(field(item, 'filename')) }));
  }
  const sentAt = sentSeconds(field(m, 'date_created'));
  const updated = seconds(field(m, 'date_updated'));
  return messageRecord({
    muid: ctx.muids.of(str(field(m, 'sid')) ?? ''),
    muids: ctx.muids,
    sourceId: str(field(m, 'sid')) ?? '',
    sender: author === undefined ? ctx.options.systemUser : ctx.uids.of(author),
    conversation: where.conversation,
    sentAt,
    text: str(field(m, 'body')),
    attachments,
    placeholder:
      unavailable.length > 0 ? `[file: ${unavailable.map((u) => u.filename ?? u.sid).join(', ')}]` : undefined,
    metadata: {
      index: typeof field(m, 'index') === 'number' ? field(m, 'index') : undefined,
      attributes: attributesOf(m),
      editedAt: updated !== undefined && sentAt !== undefined && updated !== sentAt ? updated : undefined,
      contentSid: str(field(m, 'content_sid')),
      mediaUnavailable: unavailable,
    },
  });
}
