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

/**
 * Where the thread lists are: the parent (its place among the thread parents, by id), which list, and
 * the page's `before` (an archive time, or a thread id for the joined list).
 */
type ChannelCursor = { parent: number; kind: 'public' | 'private' | 'joined'; before?: string };

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
  /** Parents where the bot lacks Manage Threads: only the private threads it joined were listed. */
  const joinedOnly: string[] = [];
  /** Lists Discord refused otherwise (undocumented on some kinds of channel): named, the rest goes on. */
  const unread: string[] = [];
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
      const answer =
        cursor.kind === 'joined'
          ? await api.joinedPrivateThreads(parent.id, cursor.before)
          : await api.archivedThreads(parent.id, cursor.kind, cursor.before);
      const nextParent: ChannelCursor | undefined =
        cursor.parent + 1 < parents.length ? { parent: cursor.parent + 1, kind: 'public' } : undefined;
      const name = parent.name ?? parent.id;
      // Without Manage Threads, Discord lists the archived private threads the bot joined on a route of
      // their own (List Joined Private Archived Threads), which needs Read Message History only.
      if (answer.forbidden && cursor.kind === 'private') {
        joinedOnly.push(name);
        return page([], { parent: cursor.parent, kind: 'joined' });
      }
      if (answer.status >= 400) {
        unread.push(
          `${name} (${cursor.kind} archived threads: HTTP ${answer.status}${answer.said ? ` ${answer.said}` : ''})`,
        );
        // Both archived lists need Read Message History: a channel that refused the public one would refuse
        // the private one too, and each refusal counts against Discord's invalid-request limit.
        const privateNext = cursor.kind === 'public' && !answer.forbidden;
        return page([], privateNext ? { parent: cursor.parent, kind: 'private' } : nextParent);
      }
      const { threads, has_more: more } = answer.value;
      // The joined list pages by thread id, the others by archive time.
      const before = cursor.kind === 'joined' ? threads.at(-1)?.id : threads.at(-1)?.thread_metadata?.archive_timestamp;
      const following: ChannelCursor | undefined =
        more && before !== undefined
          ? { ...cursor, before }
          : cursor.kind === 'public'
            ? { parent: cursor.parent, kind: 'private' }
            : nextParent;
      return page(threads, following);
    },
  );
  if (joinedOnly.length > 0)
    ctx.warning(
      `discord: the bot lacks Manage Threads in ${listed(joinedOnly)}: only the archived private threads it ` +
        'joined were listed there; give it Manage Threads to pull the others',
    );
  if (unread.length > 0)
    ctx.warning(`discord: could not list the archived threads of ${listed(unread)}; the rest was pulled`);
}

/** `3 channels (a, b, c)`, at most five named. */
function listed(names: string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return `${names.length} ${names.length === 1 ? 'channel' : 'channels'} (${shown}${names.length > 5 ? ', ...' : ''})`;
}

export async function pullMessages(ctx: PullContext, api: DiscordApi, guild: DiscordGuild): Promise<void> {
  const known = rememberedChannels(ctx);
  const channels = [...known.values()].filter((c) => MESSAGE_CHANNEL_TYPES.has(c.type));
  const refused: string[] = [];
  /** Channels whose whole history answered `200 []`: empty, or no Read Message History; Discord does not say. */
  const empty: string[] = [];
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
        if (after === undefined && cutoff === undefined && page.status === 200 && page.value.length === 0)
          empty.push(c.name ?? c.id);
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
      `discord: the bot may not read ${listed(refused)}: it needs View Channel there (and Connect in a voice channel)`,
    );
  // Get Channel Messages: "If the current user is missing the READ_MESSAGE_HISTORY permission in the
  // channel, then no messages will be returned" - an empty list, which an empty channel gives too.
  if (empty.length > 0)
    ctx.warning(
      `discord: ${listed(empty)} answered no messages at all: empty, or the bot lacks Read Message History ` +
        'there (Discord then answers an empty list, not a refusal); check its permissions on them',
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
  const earlier = ctx.recalled(key) as string[] | undefined;
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
