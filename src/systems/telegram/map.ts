/**
 * One Telegram Desktop message (`result.json`) -> a message record. `text` is a string or an array
 * of strings and entities ({type, text}); media are local paths in the export folder (or "(File not
 * included...)" when media were not exported), so they become attachments only under `mediaBaseUrl`.
 */
import type { JsonObject } from '../../entities/types.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { attachment, compact, mediaUrl, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import { isObject } from '../shared/items.js';
import { MAX_MENTIONED_USERS, mentionTemplate, type MentionedUser, type PlacedMentions } from '../shared/mentions.js';
import { messageRecord } from '../shared/message-record.js';

const JOIN_LEAVE = new Set(['invite_members', 'remove_members', 'join_group_by_link', 'join_group_by_request']);
/** Chats of two people (or one: saved messages); their service messages stay in the conversation. */
export const PERSONAL_TYPES = new Set(['personal_chat', 'bot_chat', 'saved_messages']);
const PLACEHOLDERS: Record<string, string> = {
  photo: '[photo]',
  sticker: '[sticker]',
  voice_message: '[voice message]',
  video_message: '[video message]',
  animation: '[GIF]',
  video_file: '[video]',
  audio_file: '[audio]',
  file: '[file]',
};

export interface TelegramChat {
  /** The chat's id as text: source of its guid and of its messages' muids. */
  id: string;
  type: string;
  conversation: Conversation;
}

export function flattenText(text: unknown): string {
  if (typeof text === 'string') return text;
  if (!Array.isArray(text)) return '';
  return text.map((part) => (typeof part === 'string' ? part : isObject(part) ? (str(part.text) ?? '') : '')).join('');
}

export function telegramSender(m: JsonObject, chatType: string): { id?: string; name?: string; system: boolean } {
  if (m.type === 'service') {
    const actor = str(m.actor_id);
    return PERSONAL_TYPES.has(chatType) && actor !== undefined
      ? { id: actor, name: str(m.actor), system: false }
      : { system: true };
  }
  // A deleted account keeps its from_id and loses its name (`from: null`).
  return { id: str(m.from_id), name: str(m.from) ?? (m.from === null ? 'Deleted Account' : undefined), system: false };
}

export function mapTelegramMessage(
  m: JsonObject,
  chat: TelegramChat,
  ctx: PresetContext,
): { value: JsonObject; skip?: string; more: JsonObject[] } {
  const service = m.type === 'service';
  const action = str(m.action);
  const sender = telegramSender(m, chat.type);
  const text = flattenText(m.text);
  const mediaPath = str(m.photo) ?? str(m.file);
  const notIncluded = mediaPath?.startsWith('(') === true;
  const kind = str(m.media_type) ?? (m.photo !== undefined ? 'photo' : m.file !== undefined ? 'file' : undefined);
  const attachments: Attachment[] = [];
  const file = notIncluded
    ? undefined
    : attachment({
        url: mediaUrl(mediaPath, ctx.options.mediaBaseUrl),
        name: str(m.file_name),
        mimeType: m.mime_type ?? (kind === 'photo' ? 'image/jpeg' : undefined),
        size: m.file_size ?? m.photo_file_size,
      });
  if (file !== undefined) attachments.push(file);
  const poll = isObject(m.poll) ? m.poll : undefined;
  const location = isObject(m.location_information) ? m.location_information : undefined;
  const contact = isObject(m.contact_information) ? m.contact_information : undefined;
  const placeholder = service
    ? describeService(m)
    : kind === 'sticker'
      ? `[sticker${m.sticker_emoji ? ` ${String(m.sticker_emoji)}` : ''}]`
      : kind === 'file' || kind === 'audio_file'
        ? `[${kind === 'file' ? 'file' : 'audio'}${str(m.file_name) ? `: ${String(m.file_name)}` : ''}]`
        : kind !== undefined
          ? (PLACEHOLDERS[kind] ?? `[${kind.replace(/_/g, ' ')}]`)
          : poll !== undefined
            ? `[poll: ${str(poll.question) ?? ''}]`
            : location !== undefined
              ? `[location ${String(location.latitude)}, ${String(location.longitude)}]`
              : contact !== undefined
                ? `[contact: ${[str(contact.first_name), str(contact.last_name)].filter(Boolean).join(' ')}]`
                : undefined;
  const built = messageRecord({
    muid: ctx.muids.of(`${chat.id}-${str(m.id) ?? ''}`),
    muids: ctx.muids,
    sourceId: `${chat.id}-${str(m.id) ?? ''}`,
    sender: sender.id === undefined ? ctx.options.systemUser : ctx.uids.of(sender.id),
    conversation: chat.conversation,
    sentAt: sentSeconds(m.date_unixtime, m.date),
    text,
    mentions: mentionsOf(m.text, ctx),
    attachments,
    placeholder,
    metadata: {
      action,
      actor: service ? str(m.actor) : undefined,
      replyTo:
        m.reply_to_message_id !== undefined ? ctx.muids.of(`${chat.id}-${String(m.reply_to_message_id)}`) : undefined,
      forwardedFrom: str(m.forwarded_from),
      viaBot: str(m.via_bot),
      editedAt: seconds(m.edited_unixtime) ?? seconds(m.edited),
      media:
        kind !== undefined && file === undefined
          ? compact({
              kind,
              fileName: str(m.file_name),
              mimeType: str(m.mime_type),
              path: notIncluded ? undefined : mediaPath,
              notIncluded: notIncluded || undefined,
            })
          : undefined,
      poll:
        poll !== undefined
          ? compact({
              question: str(poll.question),
              answers: Array.isArray(poll.answers)
                ? poll.answers.filter(isObject).map((a) => compact({ text: str(a.text), voters: a.voters }))
                : undefined,
            })
          : undefined,
      reactions: (Array.isArray(m.reactions) ? m.reactions.filter(isObject) : []).map((r) =>
        compact({
          emoji: str(r.emoji) ?? str(r.document_id),
          count: r.count,
          users: Array.isArray(r.recent)
            ? r.recent
                .filter(isObject)
                .map((x) => str(x.from_id))
                .filter((x): x is string => x !== undefined)
                .map((id) => ctx.uids.of(id))
            : undefined,
        }),
      ),
    },
  });
  let skip = built.skip;
  if (str(m.id) === undefined) skip = SKIP.noId;
  else if (service && action !== undefined && JOIN_LEAVE.has(action) && !ctx.options.includeJoinLeave)
    skip = SKIP.joinLeave;
  else if (!sender.system && sender.id === undefined) skip = SKIP.noSender;
  return skip === undefined ? { value: built.value, more: built.more } : { value: built.value, skip, more: built.more };
}

/**
 * The text with each `mention_name` entity (a user picked by name: it carries the user's id) as a
 * template. A `mention` entity is an `@username`, which the export does not tie to any user id: it
 * stays as written.
 */
function mentionsOf(text: unknown, ctx: PresetContext): PlacedMentions | undefined {
  if (!Array.isArray(text)) return undefined;
  const users = new Map<string, MentionedUser>();
  let out = '';
  for (const part of text) {
    const e = isObject(part) ? part : undefined;
    const uid =
      e?.type === 'mention_name' && e.user_id !== undefined ? ctx.uids.of(`user${String(e.user_id)}`) : undefined;
    if (uid !== undefined && (users.has(uid) || users.size < MAX_MENTIONED_USERS)) {
      if (!users.has(uid)) users.set(uid, { uid, name: str(e?.text) ?? uid });
      out += mentionTemplate(uid);
    } else out += typeof part === 'string' ? part : (str(e?.text) ?? '');
  }
  return users.size === 0 ? undefined : { text: out, users: [...users.values()] };
}

/** Service messages carry an action, not text: "Ada invite members Bob, Cy", "Ada pin message". */
function describeService(m: JsonObject): string {
  const parts = [str(m.actor) ?? 'Someone', (str(m.action) ?? 'service').replace(/_/g, ' ')];
  if (str(m.title)) parts.push(`“${String(m.title)}”`);
  if (Array.isArray(m.members)) parts.push(m.members.filter((x) => typeof x === 'string').join(', '));
  if (typeof m.duration_seconds === 'number') parts.push(`(${m.duration_seconds} s)`);
  return parts.filter(Boolean).join(' ');
}
