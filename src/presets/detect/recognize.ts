/**
 * What one peeked file is, by its content alone: which preset's file and of which kind (users,
 * channels, messages). File names are never looked at; the rules are in docs/init.md.
 */
import type { JsonObject } from '../../entities/types.js';
import { isObject } from '../shared/items.js';
import { recordsAt, topKeys, type Peek } from './peek.js';

export const DETECTABLE = ['slack', 'sendbird', 'stream', 'discord', 'telegram', 'twilio', 'mattermost'] as const;
export type DetectablePreset = (typeof DETECTABLE)[number];

export type FileKind = 'users' | 'channels' | 'members' | 'messages' | 'mixed';

export interface Recognized {
  preset: DetectablePreset;
  kind: FileKind;
  /** What the records of the file are, for counting: the array key, `top` array, or `lines`. */
  records: { at: 'top' | 'lines' | string; type?: string };
}

const SLACK_TS = /^\d{9,11}\.\d{1,6}$/;
const SLACK_USER_ID = /^[UWB][A-Z0-9]+$/;
const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]+$/;
const TWILIO_SID = /^(CH|MB|IM|US)[0-9a-f]{32}$/i;
const SENDBIRD_USERS = new Set(['active_users', 'deactivated_users', 'users']);
const SENDBIRD_CHANNELS = new Set(['group_channels', 'open_channels', 'channels']);
const STREAM_TYPES = new Set(['user', 'channel', 'member', 'message', 'reaction']);
const TWILIO_LISTS = {
  conversations: 'channels',
  participants: 'members',
  messages: 'messages',
  users: 'users',
} as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function recognize(peek: Peek): Recognized | undefined {
  if (peek.layout === 'lines') return recognizeLines(peek.lines ?? []);
  const head = peek.head;
  if (Array.isArray(head)) return recognizeArray(recordsAt(head));
  if (isObject(head)) return recognizeDocument(head);
  return undefined;
}

function recognizeLines(lines: JsonObject[]): Recognized | undefined {
  const first = lines[0];
  if (first === undefined) return undefined;
  // mmctl's bulk export: the first line is always {"type": "version", "version": 1, ...}.
  if (first.type === 'version' && typeof first.version === 'number')
    return { preset: 'mattermost', kind: 'mixed', records: { at: 'lines', type: 'post' } };
  if (typeof first.type === 'string' && STREAM_TYPES.has(first.type) && (isObject(first.data) || isObject(first.item)))
    return { preset: 'stream', kind: 'mixed', records: { at: 'lines', type: 'message' } };
  // Stream's channel export v2: one `{channel, messages, members}` object per line.
  if (isObject(first.channel) && typeof first.channel.cid === 'string')
    return { preset: 'stream', kind: 'mixed', records: { at: 'lines', type: 'message' } };
  if (isTwilio(first)) return { preset: 'twilio', kind: twilioKind(first), records: { at: 'lines' } };
  // Twilio list pages saved one after another, a page per line: the page's list holds the records.
  const page = recognizeDocument(first);
  if (page?.preset === 'twilio') return { ...page, records: { at: 'lines', type: page.records.at } };
  return undefined;
}

function recognizeArray(items: JsonObject[]): Recognized | undefined {
  const first = items[0];
  if (first === undefined) return undefined;
  if (typeof first.type === 'string' && STREAM_TYPES.has(first.type) && isObject(first.item))
    return { preset: 'stream', kind: 'mixed', records: { at: 'top', type: 'message' } };
  if (isObject(first.channel) && typeof first.channel.cid === 'string')
    return { preset: 'stream', kind: 'mixed', records: { at: 'top', type: 'message' } };
  // The Twilio CLI's `-o json`: a bare array of camelCase resources.
  if (isTwilio(first)) return { preset: 'twilio', kind: twilioKind(first), records: { at: 'top' } };
  if (items.some((m) => typeof m.ts === 'string' && SLACK_TS.test(m.ts) && (m.type === 'message' || 'user' in m)))
    return { preset: 'slack', kind: 'messages', records: { at: 'top' } };
  const id = str(first.id) ?? '';
  if (SLACK_USER_ID.test(id) && (isObject(first.profile) || 'real_name' in first || 'is_bot' in first))
    return { preset: 'slack', kind: 'users', records: { at: 'top' } };
  if (
    SLACK_CHANNEL_ID.test(id) &&
    'name' in first &&
    ('created' in first || 'members' in first || 'is_general' in first)
  )
    return { preset: 'slack', kind: 'channels', records: { at: 'top' } };
  // Slack's dms.json: ids D..., members, no name.
  if (/^D[A-Z0-9]{2,}$/.test(id) && Array.isArray(first.members))
    return { preset: 'slack', kind: 'channels', records: { at: 'top' } };
  return undefined;
}

function recognizeDocument(doc: JsonObject): Recognized | undefined {
  const keys = topKeys(doc);
  // DiscordChatExporter: {"guild": {...}, "channel": {"id", "type", ...}, "messages": [...]}; a DM's
  // guild may be null.
  if ((isObject(doc.guild) || doc.guild === null) && isObject(doc.channel) && 'id' in doc.channel)
    return { preset: 'discord', kind: 'messages', records: { at: 'messages' } };
  // `pull discord`'s member list: {"guildMembers": {guild}, "members": [...]}.
  if (isObject(doc.guildMembers) && Array.isArray(doc.members))
    return { preset: 'discord', kind: 'users', records: { at: 'members' } };
  // Stream's channel export v1, one channel per file.
  if (isObject(doc.channel) && typeof doc.channel.cid === 'string')
    return { preset: 'stream', kind: 'mixed', records: { at: 'messages' } };
  // Twilio REST list pages: {"conversations": [...], "meta": {"key": "conversations", "page_size": 50, ...}}.
  const meta = isObject(doc.meta) ? doc.meta : undefined;
  for (const [list, kind] of Object.entries(TWILIO_LISTS)) {
    const records = recordsAt(doc, list);
    if (Array.isArray(doc[list]) && (meta?.key === list || (records[0] !== undefined && isTwilio(records[0]))))
      return { preset: 'twilio', kind, records: { at: list } };
  }
  // Telegram Desktop: one chat (`{name, type, id, messages}`) or the full export (`chats.list`).
  if (isObject(doc.chats) || isObject(doc.personal_information) || isObject(doc.left_chats))
    return { preset: 'telegram', kind: 'mixed', records: { at: 'chats' } };
  const firstMessage = recordsAt(doc, 'messages')[0];
  if (
    typeof doc.type === 'string' &&
    'id' in doc &&
    firstMessage !== undefined &&
    ('date_unixtime' in firstMessage || 'from_id' in firstMessage || 'actor_id' in firstMessage)
  )
    return { preset: 'telegram', kind: 'mixed', records: { at: 'messages' } };
  // Sendbird Data Export: the file's first key says what it holds.
  const first = keys[0];
  if (first !== undefined && SENDBIRD_USERS.has(first) && recordsAt(doc, first).some((u) => 'user_id' in u))
    return { preset: 'sendbird', kind: 'users', records: { at: first } };
  if (first !== undefined && SENDBIRD_CHANNELS.has(first) && recordsAt(doc, first).some((c) => 'channel_url' in c))
    return { preset: 'sendbird', kind: 'channels', records: { at: first } };
  if (
    (first === 'messages' || first === 'channel') &&
    (recordsAt(doc, 'messages').some((m) => 'message_id' in m || 'channel_url' in m) ||
      (isObject(doc.channel) && 'channel_url' in doc.channel))
  )
    return { preset: 'sendbird', kind: 'messages', records: { at: 'messages' } };
  return undefined;
}

function isTwilio(record: JsonObject): boolean {
  const sid = str(record.sid);
  return sid !== undefined && TWILIO_SID.test(sid) && ('account_sid' in record || 'accountSid' in record);
}

function twilioKind(record: JsonObject): FileKind {
  const prefix = (str(record.sid) ?? '').slice(0, 2).toUpperCase();
  return prefix === 'CH' ? 'channels' : prefix === 'IM' ? 'messages' : prefix === 'MB' ? 'members' : 'users';
}
