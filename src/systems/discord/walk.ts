/**
 * The pull of one guild: its members, its channels and threads, then each channel's messages, every
 * file through `ctx.pages` so a killed pull resumes from its cursors. The channel list is remembered
 * with its pages, so a resumed pull that finished it knows its channels without asking again.
 */
import { ConfigError } from '../../errors.js';
import type { PullContext } from '../shared/pull-types.js';
import { type DiscordApi, type DiscordChannel, type DiscordGuild, MEMBERS_PAGE } from './api.js';
import {
  channelFileName,
  channelHead,
  dceChannel,
  dceMember,
  dceMessage,
  MESSAGE_CHANNEL_TYPES,
  memberListHead,
  THREAD_PARENT_TYPES,
} from './layout.js';
import { snowflakeAt, snowflakeMs } from './snowflake.js';

const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;
const PAGE = 100;

/** Stops before any page when Discord would give every message empty text. */
export async function checkMessageContent(api: DiscordApi): Promise<void> {
  const app = await api.application();
  const flags = typeof app.flags === 'number' ? app.flags : 0;
  if ((flags & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) !== 0) return;
  throw new ConfigError(
    'DISCORD_NO_MESSAGE_CONTENT',
    `discord: the bot${app.name ? ` "${app.name}"` : ''} lacks the Message Content intent: Discord would ` +
      'give every message empty text, so nothing was pulled',
    {
      hint:
        'turn it on in the Discord Developer Portal: your application -> Bot -> Privileged Gateway Intents -> ' +
        'Message Content Intent (a verified app over 100 servers must also be approved for it), then pull again',
    },
  );
}

/** `--guild`, else DISCORD_GUILD_ID, else the only guild the bot is in. */
export async function resolveGuild(ctx: PullContext, api: DiscordApi): Promise<string> {
  const chosen = ctx.options.guild ?? ctx.facts.guild;
  if (chosen !== undefined && chosen !== '') return chosen;
  const guilds = await api.guilds();
  if (guilds.length === 1) return guilds[0].id;
  const named = guilds.slice(0, 10).map((g) => `${g.id} (${g.name ?? '?'})`);
  throw new ConfigError(
    'DISCORD_GUILD_UNKNOWN',
    guilds.length === 0
      ? 'discord: the bot is in no server (guild): invite it to the one to pull'
      : `discord: the bot is in ${guilds.length} servers (guilds): ${named.join(', ')}` +
          `${guilds.length > 10 ? ', ...' : ''}`,
    { hint: 'choose one: pull discord --guild <id>, or set DISCORD_GUILD_ID' },
  );
}

export async function pullMembers(ctx: PullContext, api: DiscordApi, guild: DiscordGuild): Promise<void> {
  const head = memberListHead(guild);
  let forbidden = false;
  await ctx.pages<string>(
    {
      id: 'members',
      file: 'members.json',
      layout: { json: { head, tail: ']}' } },
      entity: 'users',
      itemKey: (m) => String((m as { id: unknown }).id),
      itemTimeMs: (m) => timeOf((m as { joinedAt?: string }).joinedAt),
    },
    async (after) => {
      const page = await api.members(guild.id, after ?? '0');
      forbidden ||= page.forbidden;
      const items = page.value.map(dceMember).filter((m) => m !== undefined);
      const last = page.value.at(-1)?.user?.id;
      return { items, next: page.value.length === MEMBERS_PAGE && last !== undefined ? last : undefined };
    },
  );
  if (forbidden)
    ctx.warning(
      'discord: the bot may not list the server members (the Server Members intent is off): users come from ' +
        'the message authors only. Turn it on: Developer Portal -> Bot -> Privileged Gateway Intents',
    );
}

/** The channels' facts kept with their pages: what the messages need after a resume. */
interface ChannelFact {
  id: string;
  type: number;
  name?: string;
  topic?: string | null;
  parent_id?: string | null;
}

type ChannelCursor = { parent: number; kind: 'public' | 'private'; before?: string };

const factOf = (c: DiscordChannel): ChannelFact => ({
  id: c.id,
  type: c.type,
  name: c.name,
  topic: c.topic ?? null,
  parent_id: c.parent_id ?? null,
});

function rememberedChannels(ctx: PullContext): Map<string, ChannelFact> {
  return new Map(ctx.remembered('channel:').map(([, fact]) => [(fact as ChannelFact).id, fact as ChannelFact]));
}

export async function pullChannels(ctx: PullContext, api: DiscordApi, guild: DiscordGuild): Promise<void> {
  let privateRefused = 0;
  const page = (channels: DiscordChannel[], next: ChannelCursor | undefined) => {
    const known = rememberedChannels(ctx);
    for (const c of channels) known.set(c.id, factOf(c));
    return {
      items: channels.map((c) => ({
        ...dceChannel(c, known.get(c.parent_id ?? '')),
        parentId: c.parent_id ?? null,
      })),
      next,
      remember: channels.map((c) => [`channel:${c.id}`, factOf(c)] as const),
    };
  };
  await ctx.pages<ChannelCursor>(
    {
      id: 'channels',
      file: 'channels.json',
      layout: { json: { head: '{"discordChannels":[', tail: ']}' } },
      entity: 'groups',
      // Categories and forums are listed too; the groups are counted with their messages (below).
      notRecords: true,
      itemKey: (c) => String((c as { id: unknown }).id),
      // Discord keeps no change time for a channel: a delta lists those created since (their snowflake).
      itemTimeMs: (c) => snowflakeMs(String((c as { id: unknown }).id)),
    },
    async (cursor) => {
      if (cursor === undefined) {
        const channels = [...(await api.channels(guild.id)), ...(await api.activeThreads(guild.id))];
        return page(channels, { parent: 0, kind: 'public' });
      }
      const parents = [...rememberedChannels(ctx).values()]
        .filter((c) => THREAD_PARENT_TYPES.has(c.type))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const parent = parents[cursor.parent];
      if (parent === undefined) return { items: [] };
      const answer = await api.archivedThreads(parent.id, cursor.kind, cursor.before);
      if (answer.forbidden && cursor.kind === 'private') privateRefused += 1;
      const { threads, has_more: more } = answer.value;
      const lastArchived = threads.at(-1)?.thread_metadata?.archive_timestamp;
      const following: ChannelCursor | undefined =
        more && lastArchived !== undefined
          ? { ...cursor, before: lastArchived }
          : cursor.kind === 'public'
            ? { parent: cursor.parent, kind: 'private' }
            : cursor.parent + 1 < parents.length
              ? { parent: cursor.parent + 1, kind: 'public' }
              : undefined;
      return page(threads, following);
    },
  );
  if (privateRefused > 0)
    ctx.warning(
      `discord: the bot may not list archived private threads in ${privateRefused} channels (it needs the ` +
        'Manage Threads permission there): those threads are not pulled',
    );
}

export async function pullMessages(ctx: PullContext, api: DiscordApi, guild: DiscordGuild): Promise<void> {
  const known = rememberedChannels(ctx);
  const channels = [...known.values()].filter((c) => MESSAGE_CHANNEL_TYPES.has(c.type));
  const refused: string[] = [];
  await ctx.eachChannel(channels, async (c) => {
    const parent = known.get(c.parent_id ?? '');
    const cutoff = ctx.since.kind === 'delta' ? ctx.since.cutoffMs(c.id) : undefined;
    await ctx.pages<string>(
      {
        id: `messages:${c.id}`,
        file: channelFileName(guild, c as DiscordChannel, parent as DiscordChannel | undefined),
        layout: {
          json: { head: channelHead(guild, c as DiscordChannel, parent as DiscordChannel, cutoff), tail: ']}' },
        },
        entity: 'messages',
        channel: c.id,
        itemKey: (m) => String((m as { id: unknown }).id),
        itemTimeMs: (m) => timeOf((m as { timestamp?: string }).timestamp),
      },
      async (after) => {
        // A delta starts at the snowflake of its cutoff: a channel with nothing new costs one page.
        const start = after ?? (cutoff === undefined ? '0' : snowflakeAt(cutoff));
        const page = await api.messagesAfter(c.id, start);
        if (page.forbidden) refused.push(c.name ?? c.id);
        const last = page.value.at(-1)?.id;
        const items = page.value.map(dceMessage);
        return {
          items,
          next: page.value.length === PAGE && last !== undefined ? last : undefined,
          ...countedAsImportReads(ctx, c.id, items),
        };
      },
    );
  });
  if (refused.length > 0)
    ctx.warning(
      `discord: the bot may not read the history of ${refused.length} channels (${refused.slice(0, 5).join(', ')}` +
        `${refused.length > 5 ? ', ...' : ''}): it needs View Channel and Read Message History there`,
    );
}

/**
 * The preset makes each channel file a group and each person who wrote in it a member, so the pull
 * counts them as its messages come: a channel the first time it has any, an author (bots too, as the
 * import's default `includeBots` takes them) the first time in that channel. Kept with the page, so a
 * resumed pull or a later delta counts none twice.
 */
function countedAsImportReads(ctx: PullContext, channel: string, items: Array<Record<string, unknown>>) {
  if (items.length === 0) return {};
  const key = `authors:${channel}`;
  const earlier = ctx.remembered(key).find(([k]) => k === key)?.[1] as string[] | undefined;
  const authors = new Set(earlier);
  for (const m of items) {
    const author = (m.author as { id?: string } | undefined)?.id;
    if (author !== undefined) authors.add(author);
  }
  const nested = { groups: earlier === undefined ? 1 : 0, members: authors.size - (earlier?.length ?? 0) };
  return { nested, remember: [[key, [...authors]] as const] };
}

function timeOf(iso: string | undefined): number | undefined {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}
