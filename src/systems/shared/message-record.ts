/**
 * A source message -> the message records the service's apps expect: one message a file, each
 * typed by its own file (image/video/audio/file), the text (and what the source said about the
 * message) on the first; custom payloads (a Stream product card) as `category: "custom"` messages;
 * mentions as `<@uid:UID>` templates with `mentionedUserDetails`. The first record keeps the muid a
 * source message always had, so a migration begun before this split does not get it twice; the others
 * take muids derived from the source id and their place, the same on every run.
 */
import type { JsonObject } from '../../entities/types.js';
import { receiverOf, SKIP, type Conversation } from './context.js';
import type { IdMapWriter, ServiceIds } from './ids.js';
import { mentionedUserDetails, type PlacedMentions } from './mentions.js';
import { compact, DATA_BYTES, fitMetadata, messageType, type Attachment } from './message-parts.js';

/** A payload the source attached that is no file: sent as a `custom` message of its own. */
export interface CustomPart {
  /** The message type on the service (`product`): any string, for a custom message. */
  type: string;
  data: JsonObject;
}

export interface MessageInput {
  muid: string;
  /** The migration's message id rule, for the muids of the second and later parts. */
  muids: ServiceIds;
  /** The source message's id, whence the muids of its second and later parts; default the muid. */
  sourceId?: string;
  sender: string;
  conversation: Conversation;
  sentAt: number | undefined;
  text?: string;
  attachments?: Attachment[];
  custom?: CustomPart[];
  /** The text with mention templates, and who they name (mentions.ts); the source's text goes to metadata. */
  mentions?: PlacedMentions;
  /**
   * Text to send when there is neither text nor attachment (`[sticker 👍]`); without it the message is
   * skipped as empty.
   */
  placeholder?: string;
  metadata?: Record<string, unknown>;
  /** Soft-deleted at (seconds): the pipeline's deleted-message rule decides (skipped by default). */
  deletedAt?: number;
}

/** The first record (text, metadata) and, in `more`, the rest of the source message; `skip` applies to all. */
export interface BuiltMessage {
  value: JsonObject;
  skip?: string;
  more: JsonObject[];
}

type Part = { kind: 'text' } | { kind: 'file'; file: Attachment } | { kind: 'custom'; custom: CustomPart };

/** The muid of a source message's part `n` (2, 3...): its first part keeps the message's own. */
export const partMuid = (muids: ServiceIds, sourceId: string, n: number): string => muids.of(`${sourceId}#${n}`);

export function messageRecord(m: MessageInput): BuiltMessage {
  const files = m.attachments ?? [];
  const customs = m.custom ?? [];
  let text = m.text !== undefined && m.text.trim() !== '' ? m.text : undefined;
  const metadata: Record<string, unknown> = { ...m.metadata };
  let skip: string | undefined;
  if (text !== undefined && m.mentions !== undefined) {
    metadata.originalText = text;
    text = m.mentions.text;
  }
  if (text === undefined && files.length === 0 && customs.length === 0) {
    if (m.placeholder !== undefined) {
      text = m.placeholder;
      metadata.placeholder = true;
    } else skip = SKIP.empty;
  }
  if (m.sentAt === undefined) skip ??= SKIP.noTimestamp;
  const parts: Part[] = files.map((file) => ({ kind: 'file', file }));
  if (parts.length === 0) parts.push({ kind: 'text' });
  if (customs.length > 0 && text === undefined && files.length === 0) parts.pop();
  for (const custom of customs) parts.push({ kind: 'custom', custom });
  if (parts.length > 1) metadata.parts = parts.length;

  const base = (muid: string): JsonObject => ({
    muid,
    sender: m.sender,
    ...receiverOf(m.conversation, m.sender),
    sentAt: m.sentAt ?? 0,
  });
  const record = (muid: string, part: Part, data: Record<string, unknown>): JsonObject => {
    const value = base(muid);
    if (part.kind === 'custom') {
      value.category = 'custom';
      value.type = part.custom.type;
      data.customData = part.custom.data;
    } else {
      value.category = 'message';
      value.type = part.kind === 'file' ? messageType([part.file]) : 'text';
      if (part.kind === 'file') data.attachments = [part.file];
    }
    value.data = fitMetadata(compact(data), DATA_BYTES);
    if (m.deletedAt !== undefined) value.deletedAt = m.deletedAt;
    return value;
  };
  const value = record(m.muid, parts[0], { text, metadata: compact(metadata) });
  if (m.mentions !== undefined && text === m.mentions.text)
    value.mentionedUserDetails = mentionedUserDetails(m.mentions.users);
  const sourceId = m.sourceId ?? m.muid;
  const more = parts
    .slice(1)
    .map((part, i) => record(partMuid(m.muids, sourceId, i + 2), part, { metadata: { partOf: m.muid, part: i + 2 } }));
  return skip === undefined ? { value, more } : { value, skip, more };
}

/** The records of a built message, for an input: each carries the message's skip reason. */
export function messageItems(built: { value: JsonObject; skip?: string; more?: JsonObject[] }): Array<{
  value: JsonObject;
  skip?: string;
}> {
  const one = (value: JsonObject) => (built.skip === undefined ? { value } : { value, skip: built.skip });
  return [one(built.value), ...(built.more ?? []).map(one)];
}

/** Id map lines for a built message: its first record under the source id, the others as `<id>#<n>`. */
export function addMessageIds(
  idMap: Pick<IdMapWriter, 'add'>,
  sourceId: string,
  built: { value: JsonObject; more?: JsonObject[] },
): void {
  idMap.add('messages', sourceId, built.value.muid as string);
  const more = built.more ?? [];
  for (let i = 0; i < more.length; i++) idMap.add('messages', `${sourceId}#${i + 2}`, more[i].muid as string);
}
