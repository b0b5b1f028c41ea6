/**
 * One DiscordChatExporter message -> a message record. DCE writes Discord's objects in camelCase,
 * with message and channel kinds as names (`Default`, `Reply`, `GuildMemberJoin`, `DirectTextChat`),
 * and replaces asset URLs by local paths when run with --media (those need `mediaBaseUrl`).
 */
import type { JsonObject } from '../../entities/types.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { attachment, compact, mediaUrl, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import type { SeenPerson } from '../shared/people.js';
import { isObject } from '../shared/items.js';
import { atNameTokens, placeMentions } from '../shared/mentions.js';
import { messageRecord } from '../shared/message-record.js';

const JOIN_LEAVE = new Set(['RecipientAdd', 'RecipientRemove', 'GuildMemberJoin']);
const NORMAL = new Set(['Default', 'Reply']);
const IMAGE_STICKERS = new Set(['Png', 'Apng', 'Gif']);

export interface DiscordAuthor {
  id: string;
  person: SeenPerson;
  isBot: boolean;
}

export function discordAuthor(m: JsonObject, ctx: PresetContext): DiscordAuthor | undefined {
  const a = isObject(m.author) ? m.author : undefined;
  const id = str(a?.id);
  if (a === undefined || id === undefined) return undefined;
  const discriminator = str(a.discriminator);
  return {
    id,
    isBot: a.isBot === true,
    person: {
      name: str(a.nickname) ?? str(a.name),
      avatar: mediaUrl(a.avatarUrl, ctx.options.mediaBaseUrl),
      isBot: a.isBot === true || undefined,
      metadata: {
        discordUserId: id,
        discordName: str(a.name),
        discriminator: discriminator === '0000' ? undefined : discriminator,
      },
    },
  };
}

export function mapDiscordMessage(
  m: JsonObject,
  conversation: Conversation,
  ctx: PresetContext,
): { value: JsonObject; skip?: string; more: JsonObject[]; author?: DiscordAuthor } {
  const base = ctx.options.mediaBaseUrl;
  const type = str(m.type) ?? 'Default';
  const author = discordAuthor(m, ctx);
  const attachments: Attachment[] = [];
  // Downloaded assets are local paths: without mediaBaseUrl they cannot be attachments, only named.
  const unavailable: string[] = [];
  for (const a of Array.isArray(m.attachments) ? m.attachments.filter(isObject) : []) {
    const file = attachment({ url: mediaUrl(a.url, base), name: str(a.fileName), size: a.fileSizeBytes });
    if (file !== undefined) attachments.push(file);
    else unavailable.push(str(a.fileName) ?? str(a.url) ?? 'file');
  }
  const stickers = Array.isArray(m.stickers) ? m.stickers.filter(isObject) : [];
  const embeds = Array.isArray(m.embeds) ? m.embeds.filter(isObject) : [];
  const text = str(m.content);
  // A sticker-only message: the sticker's image when it is one, else a placeholder naming it.
  if (text === undefined && attachments.length === 0) {
    for (const s of stickers) {
      const url = IMAGE_STICKERS.has(str(s.format) ?? '') ? mediaUrl(s.sourceUrl, base) : undefined;
      const a = attachment({ url, name: `${str(s.name) ?? 'sticker'}.${s.format === 'Gif' ? 'gif' : 'png'}` });
      if (a !== undefined) attachments.push(a);
    }
  }
  const embedText = embeds
    .map((e) => [str(e.title), str(e.description)].filter(Boolean).join('\n'))
    .filter(Boolean)
    .join('\n\n');
  const placeholder =
    unavailable.length > 0
      ? `[file: ${unavailable.join(', ')}]`
      : stickers.length > 0
        ? `[sticker: ${stickers.map((s) => str(s.name) ?? '?').join(', ')}]`
        : embedText !== ''
          ? embedText
          : NORMAL.has(type)
            ? undefined
            : `[${type}]`;
  const reference = isObject(m.reference) ? str(m.reference.messageId) : undefined;
  const mentioned = (Array.isArray(m.mentions) ? m.mentions.filter(isObject) : []).filter(
    (u) => str(u.id) !== undefined,
  );
  // Raw Discord text writes `<@id>` (`<@!id>` for a nickname); DCE's rendered text writes `@nickname`.
  const mentions = placeMentions(
    text,
    mentioned.flatMap((u) => {
      const id = str(u.id)!;
      const user = { uid: ctx.uids.of(id), name: str(u.nickname) ?? str(u.name) ?? id };
      return [
        { ...user, token: `<@${id}>` },
        { ...user, token: `<@!${id}>` },
        ...atNameTokens([{ uid: user.uid, names: [str(u.nickname), str(u.name)] }]),
      ];
    }),
  );
  const built = messageRecord({
    muid: ctx.muids.of(str(m.id) ?? ''),
    muids: ctx.muids,
    sourceId: str(m.id) ?? '',
    sender: author === undefined ? ctx.options.systemUser : ctx.uids.of(author.id),
    conversation,
    sentAt: sentSeconds(m.timestamp),
    text,
    mentions,
    attachments,
    placeholder,
    metadata: {
      discordType: NORMAL.has(type) ? undefined : type,
      replyTo: reference && ctx.muids.of(reference),
      editedAt: seconds(m.timestampEdited),
      pinned: m.isPinned === true || undefined,
      reactions: (Array.isArray(m.reactions) ? m.reactions.filter(isObject) : []).map((r) =>
        compact({
          emoji: isObject(r.emoji) ? str(r.emoji.name) : undefined,
          count: r.count,
          users: Array.isArray(r.users)
            ? r.users
                .filter(isObject)
                .map((u) => str(u.id))
                .filter((x): x is string => x !== undefined)
                .map((id) => ctx.uids.of(id))
            : undefined,
        }),
      ),
      // Mentioned users the text does not name: kept, since no template can show them.
      mentions: mentioned
        .map((u) => ctx.uids.of(str(u.id)!))
        .filter((uid) => !mentions?.users.some((p) => p.uid === uid)),
      embeds: embeds.map((e) => compact({ title: str(e.title), url: str(e.url), description: str(e.description) })),
      stickers: stickers.map((s) => compact({ name: str(s.name), format: str(s.format) })),
      filesUnavailable: unavailable,
    },
  });
  let skip = built.skip;
  if (str(m.id) === undefined) skip = SKIP.noId;
  else if (JOIN_LEAVE.has(type) && !ctx.options.includeJoinLeave) skip = SKIP.joinLeave;
  else if (author?.isBot === true && !ctx.options.includeBots) skip = SKIP.bot;
  else if (author === undefined) skip = SKIP.noSender;
  const out: { value: JsonObject; skip?: string; more: JsonObject[]; author?: DiscordAuthor } = {
    value: built.value,
    more: built.more,
  };
  if (skip !== undefined) out.skip = skip;
  if (author !== undefined) out.author = author;
  return out;
}
