/**
 * Discord's API objects -> DiscordChatExporter JSON (`--format Json`), the layout the discord preset
 * reads (docs/presets/discord.md): one file per channel or thread, `{"guild", "channel", "dateRange",
 * "exportedAt", "messages": [...]}`, kinds as DCE names them, camelCase fields, asset URLs on
 * Discord's CDN. Guild members go in one more file of the same spirit, `{"guildMembers", "members"}`.
 */
import type { DiscordChannel, DiscordGuild, DiscordMember, DiscordMessage, DiscordUser } from './api.js';

const CDN = 'https://cdn.discordapp.com';

/** Discord's channel types (https://discord.com/developers/docs/resources/channel#channel-object-channel-types). */
const CHANNEL_KINDS: Record<number, string> = {
  0: 'GuildTextChat',
  1: 'DirectTextChat',
  2: 'GuildVoiceChat',
  3: 'DirectGroupTextChat',
  4: 'GuildCategory',
  5: 'GuildNews',
  10: 'GuildNewsThread',
  11: 'GuildPublicThread',
  12: 'GuildPrivateThread',
  13: 'GuildStageVoice',
  14: 'GuildDirectory',
  15: 'GuildForum',
  16: 'GuildMedia',
};

/** Channels that hold messages themselves; categories hold channels, forums and media channels threads. */
export const MESSAGE_CHANNEL_TYPES = new Set([0, 1, 2, 3, 5, 10, 11, 12, 13]);
/** Channels whose threads are listed by the archived-threads routes. */
export const THREAD_PARENT_TYPES = new Set([0, 5, 15, 16]);

/** Discord's message types as DCE names them; others keep Discord's number. */
const MESSAGE_KINDS: Record<number, string> = {
  0: 'Default',
  1: 'RecipientAdd',
  2: 'RecipientRemove',
  3: 'Call',
  4: 'ChannelNameChange',
  5: 'ChannelIconChange',
  6: 'ChannelPinnedMessage',
  7: 'GuildMemberJoin',
  18: 'ThreadCreated',
  19: 'Reply',
  20: 'ChatInputCommand',
  21: 'ThreadStarterMessage',
  23: 'ContextMenuCommand',
};

/** Sticker formats (1 PNG, 2 APNG, 3 Lottie, 4 GIF). */
const STICKER_FORMATS: Record<number, string> = { 1: 'Png', 2: 'Apng', 3: 'Lottie', 4: 'Gif' };

const iso = (s: string | null | undefined): string | null => (s ? new Date(s).toISOString() : null);

/** The first key of the member list file, which the preset and `init` know it by. */
export const MEMBER_LIST_KEY = 'guildMembers';

/** The member list file up to its members: `{"guildMembers": {guild}, "members": [`. */
export const memberListHead = (guild: DiscordGuild): string =>
  `{"${MEMBER_LIST_KEY}":${JSON.stringify(dceGuild(guild))},"members":[`;

export function dceGuild(g: DiscordGuild): Record<string, unknown> {
  return { id: g.id, name: g.name ?? g.id, iconUrl: g.icon ? `${CDN}/icons/${g.id}/${g.icon}.png?size=512` : null };
}

/** A channel or thread; its category is its parent (a category, or a thread's channel), as DCE writes it. */
export function dceChannel(c: DiscordChannel, parent: DiscordChannel | undefined): Record<string, unknown> {
  return {
    id: c.id,
    type: CHANNEL_KINDS[c.type] ?? `Type${c.type}`,
    categoryId: parent?.id ?? null,
    category: parent?.name ?? null,
    name: c.name ?? c.id,
    topic: c.topic ?? null,
  };
}

export function dceUser(u: DiscordUser, nick?: string | null): Record<string, unknown> {
  return {
    id: u.id,
    name: u.username ?? u.id,
    discriminator: u.discriminator ?? '0000',
    nickname: nick ?? u.global_name ?? u.username ?? u.id,
    color: null,
    isBot: u.bot === true,
    roles: [],
    avatarUrl: u.avatar ? `${CDN}/avatars/${u.id}/${u.avatar}.png?size=512` : `${CDN}/embed/avatars/0.png`,
  };
}

export function dceMember(m: DiscordMember): Record<string, unknown> | undefined {
  if (m.user?.id === undefined) return undefined;
  return { ...dceUser(m.user, m.nick), joinedAt: iso(m.joined_at) };
}

export function dceMessage(m: DiscordMessage): Record<string, unknown> {
  return {
    id: m.id,
    type: MESSAGE_KINDS[m.type ?? 0] ?? `Type${m.type}`,
    timestamp: iso(m.timestamp),
    timestampEdited: iso(m.edited_timestamp),
    callEndedTimestamp: null,
    isPinned: m.pinned === true,
    content: m.content ?? '',
    author: m.author === undefined ? undefined : dceUser(m.author),
    attachments: (m.attachments ?? []).map((a) => ({
      id: a.id,
      url: a.url,
      fileName: a.filename ?? a.id,
      fileSizeBytes: a.size ?? 0,
    })),
    embeds: (m.embeds ?? []).map((e) => ({ title: e.title, url: e.url, description: e.description })),
    stickers: (m.sticker_items ?? []).map((s) => ({
      id: s.id,
      name: s.name ?? s.id,
      format: STICKER_FORMATS[s.format_type ?? 1] ?? 'Png',
      sourceUrl: `${CDN}/stickers/${s.id}.${s.format_type === 3 ? 'json' : s.format_type === 4 ? 'gif' : 'png'}`,
    })),
    // The API gives each reaction's count; who reacted is one more request per emoji, not pulled.
    reactions: (m.reactions ?? []).map((r) => ({
      emoji: { id: r.emoji?.id ?? '', name: r.emoji?.name ?? '', isAnimated: r.emoji?.animated === true },
      count: r.count ?? 0,
    })),
    mentions: (m.mentions ?? []).map((u) => dceUser(u)),
    reference:
      m.message_reference?.message_id === undefined
        ? undefined
        : {
            messageId: m.message_reference.message_id,
            channelId: m.message_reference.channel_id ?? null,
            guildId: m.message_reference.guild_id ?? null,
          },
  };
}

/** A channel file's name, as DCE names them: `<guild> - <category> - <name> [<id>].json`, made safe. */
export function channelFileName(guild: DiscordGuild, c: DiscordChannel, parent: DiscordChannel | undefined): string {
  const parts = [guild.name ?? guild.id, parent?.name ?? 'Channels', c.name ?? c.id].map(safe);
  return `${parts.join(' - ')} [${c.id}].json`;
}

// Characters no file system takes in a name, and control characters (code points below 32).
const safe = (s: string): string =>
  [...s]
    .map((ch) => (ch.charCodeAt(0) < 32 ? '_' : ch))
    .join('')
    .replace(/[<>:"/\\|?*]+/g, '_')
    .replace(/^[. ]+|[. ]+$/g, '')
    .slice(0, 60) || '_';

/** The head of a channel's file: everything before its messages. */
export function channelHead(
  guild: DiscordGuild,
  c: DiscordChannel,
  parent: DiscordChannel | undefined,
  afterMs?: number,
) {
  const head = {
    guild: dceGuild(guild),
    channel: dceChannel(c, parent),
    // No `exportedAt`: a resumed pull must write the same head as the run it continues.
    dateRange: { after: afterMs === undefined ? null : new Date(afterMs).toISOString(), before: null },
  };
  return `${JSON.stringify(head).slice(0, -1)},"messages":[`;
}
