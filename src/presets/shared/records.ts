/**
 * The four records in the API's own field names, so the pipeline's mapping is the identity.
 * Builders leave out what the export does not have, keep names and URLs within the service's
 * limits, and return the skip reason for a message that has nothing to send.
 */
import type { JsonObject } from '../../entities/types.js';
import { receiverOf, SKIP, type Conversation } from './context.js';
import {
  clip,
  compact,
  DATA_BYTES,
  fitMetadata,
  isHttpUrl,
  messageType,
  METADATA_BYTES,
  type Attachment,
} from './message-parts.js';

export interface UserInput {
  uid: string;
  name?: string;
  /** Shown as the name when the export has none. */
  fallbackName: string;
  avatar?: unknown;
  link?: unknown;
  createdAt?: number;
  lastActiveAt?: number;
  deactivatedAt?: number;
  metadata?: Record<string, unknown>;
}

export function userRecord(u: UserInput): JsonObject {
  const name = u.name !== undefined && u.name.trim() !== '' ? u.name : u.fallbackName;
  const record = compact({
    uid: u.uid,
    name: clip(name),
    avatar: isHttpUrl(u.avatar) ? (u.avatar as string) : undefined,
    link: isHttpUrl(u.link) ? (u.link as string) : undefined,
    createdAt: u.createdAt,
    lastActiveAt: u.lastActiveAt,
    deactivatedAt: u.deactivatedAt,
    metadata: u.metadata === undefined ? undefined : compact(u.metadata),
  });
  return fitMetadata(record, METADATA_BYTES);
}

export interface GroupInput {
  guid: string;
  name?: string;
  fallbackName: string;
  type: 'public' | 'private';
  owner?: string;
  icon?: unknown;
  createdAt?: number;
  metadata?: Record<string, unknown>;
}

export function groupRecord(g: GroupInput): JsonObject {
  const name = g.name !== undefined && g.name.trim() !== '' ? g.name : g.fallbackName;
  const record = compact({
    guid: g.guid,
    name: clip(name),
    type: g.type,
    owner: g.owner,
    icon: isHttpUrl(g.icon) ? (g.icon as string) : undefined,
    createdAt: g.createdAt,
    metadata: g.metadata === undefined ? undefined : compact(g.metadata),
  });
  return fitMetadata(record, METADATA_BYTES);
}

export interface MemberInput {
  guid: string;
  uid: string;
  scope: 'admin' | 'moderator' | 'participant';
  isBanned?: boolean;
  joinedAt?: number;
}

export function memberRecord(m: MemberInput): JsonObject {
  const record: JsonObject = { guid: m.guid, uid: m.uid, scope: m.scope };
  if (m.isBanned) record.isBanned = true;
  if (m.joinedAt !== undefined) record.joinedAt = m.joinedAt;
  return record;
}

export interface MessageInput {
  muid: string;
  sender: string;
  conversation: Conversation;
  sentAt: number | undefined;
  text?: string;
  attachments?: Attachment[];
  /**
   * Text to send when there is neither text nor attachment (`[sticker 👍]`); without it the message is
   * skipped as empty.
   */
  placeholder?: string;
  metadata?: Record<string, unknown>;
  /** Soft-deleted at (seconds): the pipeline's deleted-message rule decides (skipped by default). */
  deletedAt?: number;
}

/** The message record and, when it must not be sent, why. */
export function messageRecord(m: MessageInput): { value: JsonObject; skip?: string } {
  const attachments = m.attachments ?? [];
  let text = m.text !== undefined && m.text.trim() !== '' ? m.text : undefined;
  const metadata: Record<string, unknown> = { ...m.metadata };
  let skip: string | undefined;
  if (text === undefined && attachments.length === 0) {
    if (m.placeholder !== undefined) {
      text = m.placeholder;
      metadata.placeholder = true;
    } else skip = SKIP.empty;
  }
  if (m.sentAt === undefined) skip ??= SKIP.noTimestamp;
  const data = fitMetadata(compact({ text, attachments, metadata: compact(metadata) }), DATA_BYTES);
  const value: JsonObject = {
    muid: m.muid,
    sender: m.sender,
    ...receiverOf(m.conversation, m.sender),
    sentAt: m.sentAt ?? 0,
    category: 'message',
    type: messageType(attachments),
    data,
  };
  if (m.deletedAt !== undefined) value.deletedAt = m.deletedAt;
  return skip === undefined ? { value } : { value, skip };
}
