/**
 * One Slack message (an element of a per-day file) -> a message record. Used twice with the same
 * result: by the pre-pass (to learn which senders must exist) and by the input's read().
 */
import type { JsonObject } from '../../entities/types.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { attachment, compact, seconds, sentSeconds, str, type Attachment } from '../shared/message-parts.js';
import { isObject } from '../shared/items.js';
import { placeMentions } from '../shared/mentions.js';
import { messageRecord } from '../shared/message-record.js';
import type { SeenPerson } from '../shared/people.js';

const JOIN_LEAVE = new Set(['channel_join', 'channel_leave', 'group_join', 'group_leave']);
const MENTION = /<@([UW][A-Z0-9]+)(?:\|([^>]*))?>/g;
/** Slack's own bot: in messages (a tombstone's sender), never in users.json. */
const SLACKBOT = 'USLACKBOT';

export interface SlackChannel {
  /** Slack's channel id (or the folder name when no index file lists the folder). */
  sourceId: string;
  conversation: Conversation;
  /** User ids Slack marks `is_bot` in users.json. */
  botUsers: ReadonlySet<string>;
  /** A DM with a bot user that is not imported (includeBots off): its messages are skipped as `bot`. */
  withSkippedBot: boolean;
}

export interface SlackMapped {
  value: JsonObject;
  skip?: string;
  /** The source message's second and later files, a message each. */
  more: JsonObject[];
  /** Who sent it (source id) and what the message tells of them; undefined when nobody did. */
  sender?: { sourceId: string; person: SeenPerson };
}

export function mapSlackMessage(m: JsonObject, channel: SlackChannel, ctx: PresetContext): SlackMapped {
  const { includeBots, includeJoinLeave } = ctx.options;
  const subtype = str(m.subtype);
  const ts = slackTs(m.ts);
  const comment = isObject(m.comment) ? m.comment : undefined;
  const botProfile = isObject(m.bot_profile) ? m.bot_profile : undefined;
  const userId = str(m.user) ?? str(comment?.user);
  const botId = str(m.bot_id);
  const isBot =
    subtype === 'bot_message' ||
    (botId !== undefined && userId === undefined) ||
    (userId !== undefined && channel.botUsers.has(userId));
  const senderId = userId ?? botId;
  const profile = isObject(m.user_profile)
    ? m.user_profile
    : userId === SLACKBOT
      ? { real_name: 'Slackbot' }
      : undefined;
  const icons = isObject(m.icons)
    ? m.icons
    : isObject(botProfile?.icons)
      ? (botProfile.icons as JsonObject)
      : undefined;
  const person: SeenPerson = {
    name: str(profile?.real_name) ?? str(profile?.display_name) ?? str(m.username) ?? str(botProfile?.name),
    avatar: str(profile?.image_72) ?? str(icons?.image_72) ?? str(icons?.image_48),
    isBot: isBot || undefined,
    metadata: compact({ slackName: str(profile?.name), botId }),
  };

  const { attachments, unavailable } = filesOf(m, subtype);
  // A message written with blocks only (some clients and apps leave `text` empty): the blocks' words.
  const text = str(m.text) ?? blocksText(m.blocks);
  const rich = Array.isArray(m.attachments) ? m.attachments.filter(isObject) : [];
  const richText = rich
    .map((a) => [str(a.pretext), str(a.title), str(a.text) ?? str(a.fallback)].filter(Boolean).join('\n'))
    .filter(Boolean)
    .join('\n\n');
  const threadTs = m.thread_ts === undefined ? undefined : slackTs(m.thread_ts);
  const edited = isObject(m.edited) ? m.edited : undefined;
  const mentionText = text.trim() !== '' ? text : undefined;
  const mentions = placeMentions(
    mentionText,
    [...(mentionText ?? '').matchAll(MENTION)].map((x) => ({
      token: x[0],
      uid: ctx.uids.of(x[1]),
      name: ctx.names.get(x[1]) ?? x[2] ?? x[1],
    })),
  );
  const metadata = {
    subtype,
    threadParent:
      threadTs !== undefined && threadTs !== ts ? ctx.muids.of(`${channel.sourceId}:${threadTs}`) : undefined,
    huddle: isObject(m.room) ? compact({ id: str(m.room.id), participants: m.room.participants }) : undefined,
    replyCount: typeof m.reply_count === 'number' ? m.reply_count : undefined,
    // Slack marks a pinned message with the conversations it is pinned in (history and exports alike).
    pinned: Array.isArray(m.pinned_to) && m.pinned_to.length > 0 ? true : undefined,
    reactions: Array.isArray(m.reactions)
      ? m.reactions.filter(isObject).map((r) =>
          compact({
            name: str(r.name),
            count: r.count,
            users: Array.isArray(r.users) ? r.users.map((u) => ctx.uids.of(String(u))) : undefined,
          }),
        )
      : undefined,
    edited: edited
      ? compact({ by: str(edited.user) && ctx.uids.of(String(edited.user)), at: seconds(edited.ts) })
      : undefined,
    botId,
    username: isBot ? str(m.username) : undefined,
    slackAttachments: rich.map((a) =>
      compact({
        title: str(a.title),
        titleLink: str(a.title_link),
        text: str(a.text),
        fallback: str(a.fallback),
        imageUrl: str(a.image_url),
        fromUrl: str(a.from_url),
      }),
    ),
    fileComment:
      subtype === 'file_comment' && isObject(m.file)
        ? compact({ fileId: str(m.file.id), fileName: str(m.file.name) })
        : undefined,
    filesUnavailable: unavailable,
  };

  let skip: string | undefined;
  if (subtype !== undefined && JOIN_LEAVE.has(subtype) && !includeJoinLeave) skip = SKIP.joinLeave;
  else if ((isBot || channel.withSkippedBot) && !includeBots) skip = SKIP.bot;
  else if (senderId === undefined) skip = SKIP.noSender;

  const built = messageRecord({
    muid: ctx.muids.of(`${channel.sourceId}:${ts}`),
    muids: ctx.muids,
    sourceId: `${channel.sourceId}:${ts}`,
    sender: senderId === undefined ? ctx.options.systemUser : ctx.uids.of(senderId),
    conversation: channel.conversation,
    sentAt: sentSeconds(ts),
    text: text.trim() !== '' ? text : richText || str(comment?.comment),
    mentions,
    attachments,
    placeholder:
      unavailable.length > 0
        ? `[file: ${unavailable.map((f) => f.name ?? f.id).join(', ')}]`
        : subtype === 'huddle_thread'
          ? '[huddle]'
          : undefined,
    metadata,
    // A tombstone is a deleted thread parent Slack keeps so the replies still hang somewhere.
    deletedAt: subtype === 'tombstone' ? seconds(ts) : undefined,
  });
  const out: SlackMapped = { value: built.value, more: built.more };
  skip ??= built.skip;
  if (skip !== undefined) out.skip = skip;
  if (senderId !== undefined) out.sender = { sourceId: senderId, person };
  return out;
}

/**
 * A message's `ts` as Slack writes it, `1704067200.000100`: a number, or a string cut short
 * (`1704068300.5`), is padded to the 6 digits a reply's `thread_ts` uses, so both name one message.
 */
export function slackTs(value: unknown): string {
  const ts = str(value) ?? '';
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  return match === null ? ts : `${match[1]}.${(match[2] ?? '').padEnd(6, '0')}`;
}

/** The words of Slack's rich_text blocks: text, emoji as `:name:`, mentions and links as Slack writes them. */
function blocksText(blocks: unknown): string {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    if (!isObject(node)) return;
    if (node.type === 'text' && typeof node.text === 'string') out.push(node.text);
    else if (node.type === 'emoji' && typeof node.name === 'string') out.push(`:${node.name}:`);
    else if (node.type === 'user' && typeof node.user_id === 'string') out.push(`<@${node.user_id}>`);
    else if (node.type === 'channel' && typeof node.channel_id === 'string') out.push(`<#${node.channel_id}>`);
    else if (node.type === 'link' && typeof node.url === 'string') out.push(str(node.text) ?? node.url);
    else walk(node.elements);
  };
  walk(blocks);
  return out.join('');
}

/**
 * `files` (current exports) or `file` (older ones); a file comment's `file` is the file commented
 * on, not an upload, so it is no attachment. Slack's file URLs carry a `t=` access token in
 * exports: it is stripped, so the token does not spread to everyone who can read the message.
 */
function filesOf(
  m: JsonObject,
  subtype: string | undefined,
): { attachments: Attachment[]; unavailable: Array<{ id?: string; name?: string }> } {
  const files = Array.isArray(m.files)
    ? m.files.filter(isObject)
    : isObject(m.file) && subtype !== 'file_comment'
      ? [m.file]
      : [];
  const attachments: Attachment[] = [];
  const unavailable: Array<{ id?: string; name?: string }> = [];
  for (const f of files) {
    const a = attachment({
      url: stripToken(str(f.url_private) ?? str(f.permalink_public)),
      name: str(f.name) ?? str(f.title),
      mimeType: f.mimetype,
      extension: f.filetype,
      size: f.size,
    });
    if (a !== undefined) attachments.push(a);
    else
      unavailable.push(
        compact({ id: str(f.id), name: str(f.name) ?? str(f.title), mode: str(f.mode) }) as {
          id?: string;
          name?: string;
        },
      );
  }
  return { attachments, unavailable };
}

function stripToken(url: string | undefined): string | undefined {
  if (url === undefined || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (!parsed.searchParams.has('t')) return url;
  parsed.searchParams.delete('t');
  return parsed.toString();
}
