/**
 * The fake Discord's view of the world: its objects as Discord API v10 writes them and its paging.
 * A bot reads no DMs through a guild, so the world's channels become one guild's: public channels are
 * text channels in a category; the rest are threads of one forum channel (direct: active public
 * threads, group-direct: archived public threads, private: archived private threads), which exercises
 * every thread route the pull reads. Message ids are real snowflakes (send time and world order), so
 * `after=<snowflake of a time>` means what it means on Discord.
 */
import type { FakeChannel, FakeMessage, FakeUser, FakeWorld } from './types.js';

const EPOCH_MS = 1_420_070_400_000;
/** Discord's snowflake: ms since its epoch above bit 22, the low bits told apart by `low`. */
const snowflakeOf = (ms: number, low: number): string =>
  ((BigInt(Math.max(0, Math.floor(ms) - EPOCH_MS)) << 22n) | BigInt(low & 0x3fffff)).toString();

/** The guild and the two channels the world does not have: made from fixed times, the same every start. */
export const GUILD_ID = snowflakeOf(Date.UTC(2023, 0, 1), 1);
export const CATEGORY_ID = snowflakeOf(Date.UTC(2023, 0, 1), 2);
export const FORUM_ID = snowflakeOf(Date.UTC(2023, 0, 1), 3);
/** An announcement channel with no messages and no threads. */
export const ANNOUNCEMENT_ID = snowflakeOf(Date.UTC(2023, 0, 1), 4);

const iso = (ms: number): string => new Date(ms).toISOString();
const big = (id: string): bigint => (/^\d{1,20}$/.test(id) ? BigInt(id) : 0n);
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function messageId(m: FakeMessage): string {
  return snowflakeOf(m.sentAtMs, m.seq);
}

/**
 * The world's ids (`user-0001`, `channel-0001`) as Discord's: snowflakes of the user's or channel's
 * creation, told apart by their place in the world's lists, which only grow. The control routes keep
 * the world's ids.
 */
class DiscordIds {
  private readonly ids = new Map<string, string>();
  private readonly channelsById = new Map<string, FakeChannel>();
  private usersSeen = 0;
  private channelsSeen = 0;

  constructor(private readonly world: FakeWorld) {}

  user(id: string): string {
    this.refresh();
    return this.ids.get(`u:${id}`) ?? id;
  }

  channelId(c: FakeChannel): string {
    this.refresh();
    return this.ids.get(`c:${c.id}`) ?? c.id;
  }

  /** The world's channel of a Discord channel id. */
  channel(discordId: string): FakeChannel | undefined {
    this.refresh();
    return this.channelsById.get(discordId);
  }

  private refresh(): void {
    const { users, channels } = this.world;
    for (; this.usersSeen < users.length; this.usersSeen++) {
      const u = users[this.usersSeen];
      this.ids.set(`u:${u.id}`, snowflakeOf(u.createdAtMs, this.usersSeen));
    }
    for (; this.channelsSeen < channels.length; this.channelsSeen++) {
      const c = channels[this.channelsSeen];
      const id = snowflakeOf(c.createdAtMs, 0x200000 + this.channelsSeen);
      this.ids.set(`c:${c.id}`, id);
      this.channelsById.set(id, c);
    }
  }
}

export function idsOf(world: FakeWorld): DiscordIds {
  return world.memo('discord:ids', () => new DiscordIds(world));
}

export function renderUser(world: FakeWorld, u: FakeUser): Record<string, unknown> {
  return {
    id: idsOf(world).user(u.id),
    username: u.name.toLowerCase().replace(/[^a-z0-9_.]+/g, '_'),
    global_name: u.name,
    discriminator: '0',
    avatar: u.avatarUrl === undefined ? null : `a${u.id.slice(-8)}`,
    bot: u.bot === true || undefined,
    public_flags: 0,
    flags: 0,
    primary_guild: null,
  };
}

/** The guild as `GET /users/@me/guilds` lists it (Discord's MyGuildResponse). */
export function renderGuild(): Record<string, unknown> {
  return {
    id: GUILD_ID,
    name: 'Fake Guild',
    icon: null,
    banner: null,
    owner: false,
    permissions: '1071698660929',
    features: [],
  };
}

/** The guild as `GET /guilds/{id}` answers it (GuildWithCountsResponse): every field it requires. */
export function renderFullGuild(world: FakeWorld): Record<string, unknown> {
  const nothing = ['description', 'home_header', 'splash', 'discovery_splash', 'banner', 'application_id'];
  const noChannels = ['afk_channel_id', 'system_channel_id', 'widget_channel_id', 'rules_channel_id'];
  const none = [...nothing, ...noChannels, 'safety_alerts_channel_id', 'public_updates_channel_id'];
  return {
    ...Object.fromEntries(none.map((k) => [k, null])),
    id: GUILD_ID,
    name: 'Fake Guild',
    icon: null,
    features: [],
    owner_id: world.users.length > 0 ? idsOf(world).user(world.users[0].id) : GUILD_ID,
    region: 'deprecated',
    afk_timeout: 300,
    system_channel_flags: 0,
    widget_enabled: false,
    verification_level: 0,
    roles: [],
    default_message_notifications: 0,
    mfa_level: 0,
    explicit_content_filter: 0,
    max_presences: null,
    max_members: 500000,
    max_stage_video_channel_users: 50,
    max_video_channel_users: 25,
    vanity_url_code: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    premium_progress_bar_enabled: false,
    nsfw: false,
    nsfw_level: 0,
    emojis: [],
    stickers: [],
    incidents_data: null,
  };
}

/** Discord's type for a world channel, and whether it is an archived thread. */
function kindOf(c: FakeChannel): { type: number; archived: boolean } {
  if (c.kind === 'public') return { type: 0, archived: false };
  if (c.kind === 'private') return { type: 12, archived: true };
  return { type: 11, archived: c.kind === 'group-direct' };
}

export function renderChannel(world: FakeWorld, c: FakeChannel, position: number): Record<string, unknown> {
  const { type, archived } = kindOf(c);
  const ids = idsOf(world);
  const base = { id: ids.channelId(c), type, flags: 0, guild_id: GUILD_ID, name: c.name };
  if (type === 0) return { ...base, position, topic: null, parent_id: CATEGORY_ID, nsfw: false };
  const count = world.messageCount(c.id);
  return {
    ...base,
    parent_id: FORUM_ID,
    owner_id: ids.user(c.creatorId),
    member_count: c.members.length,
    message_count: count,
    total_message_sent: count,
    thread_metadata: {
      archived,
      archive_timestamp: iso(c.updatedAtMs),
      auto_archive_duration: 10080,
      locked: false,
      create_timestamp: iso(c.createdAtMs),
    },
  };
}

export function guildChannels(world: FakeWorld): Record<string, unknown>[] {
  const text = world.channels.filter((c) => c.kind === 'public').map((c, i) => renderChannel(world, c, i));
  return [
    { id: CATEGORY_ID, type: 4, flags: 0, guild_id: GUILD_ID, name: 'Text Channels', position: 0, parent_id: null },
    {
      id: FORUM_ID,
      type: 15,
      flags: 0,
      guild_id: GUILD_ID,
      name: 'threads',
      position: 1,
      parent_id: null,
      topic: null,
    },
    {
      id: ANNOUNCEMENT_ID,
      type: 5,
      flags: 0,
      guild_id: GUILD_ID,
      name: 'announcements',
      position: 2,
      parent_id: CATEGORY_ID,
    },
    ...text,
  ];
}

export function activeThreads(world: FakeWorld): Record<string, unknown> {
  const threads = world.channels.filter((c) => c.kind === 'direct').map((c) => renderChannel(world, c, 0));
  return { threads, members: [], has_more: false };
}

/** Archived threads of the forum, newest archived first, before an archive time. */
export function archivedThreads(world: FakeWorld, parent: string, kind: 'public' | 'private', q: URLSearchParams) {
  const limit = clamp(q.get('limit'), 2, 100, 50);
  const before = q.get('before');
  const beforeMs = before === null ? Number.POSITIVE_INFINITY : Date.parse(before);
  const wanted = kind === 'private' ? 'private' : 'group-direct';
  const all =
    parent !== FORUM_ID
      ? []
      : world.channels
          .filter((c) => c.kind === wanted && c.updatedAtMs < beforeMs)
          .sort((a, b) => b.updatedAtMs - a.updatedAtMs || byCode(b.id, a.id));
  return {
    threads: all.slice(0, limit).map((c) => renderChannel(world, c, 0)),
    members: [],
    has_more: all.length > limit,
  };
}

/**
 * List Joined Private Archived Threads: the private threads the bot joined (every other one in the
 * world's order), by thread id, newest first, before an id.
 */
export function joinedPrivateThreads(world: FakeWorld, parent: string, q: URLSearchParams) {
  const limit = clamp(q.get('limit'), 2, 100, 50);
  const before = big(q.get('before') ?? '') || null;
  const ids = idsOf(world);
  const joined =
    parent !== FORUM_ID
      ? []
      : world.channels
          .filter((c) => c.kind === 'private')
          .filter((_, i) => i % 2 === 0)
          .map((c) => ({ c, id: big(ids.channelId(c)) }))
          .filter(({ id }) => before === null || id < before)
          .sort((a, b) => (a.id < b.id ? 1 : -1));
  return {
    threads: joined.slice(0, limit).map(({ c }) => renderChannel(world, c, 0)),
    members: [],
    has_more: joined.length > limit,
  };
}

/** List Guild Members: by user id, after one, up to 1,000. */
export function members(world: FakeWorld, q: URLSearchParams): Record<string, unknown>[] {
  const limit = clamp(q.get('limit'), 1, 1000, 1);
  const after = big(q.get('after') ?? '0');
  const ids = idsOf(world);
  return world.users
    .map((u) => ({ u, id: big(ids.user(u.id)) }))
    .filter(({ id }) => id > after)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .slice(0, limit)
    .map(({ u }) => ({
      user: renderUser(world, u),
      nick: null,
      avatar: null,
      banner: null,
      roles: [],
      joined_at: iso(u.createdAtMs),
      premium_since: null,
      communication_disabled_until: null,
      pending: false,
      flags: 0,
      deaf: false,
      mute: false,
    }));
}

/** Get Channel Messages: `after`, `before` or the newest, up to 100, newest first as Discord answers. */
export function messages(
  world: FakeWorld,
  channel: FakeChannel,
  q: URLSearchParams,
  origin: string,
  withContent: boolean,
): Record<string, unknown>[] {
  const limit = clamp(q.get('limit'), 1, 100, 50);
  const count = world.messageCount(channel.id);
  const after = q.get('after');
  const before = q.get('before');
  let from: number;
  let to: number;
  if (after !== null) {
    from = firstAbove(world, channel.id, big(after));
    to = Math.min(count, from + limit);
  } else {
    to = before === null ? count : firstAbove(world, channel.id, big(before) - 1n);
    from = Math.max(0, to - limit);
  }
  const out: Record<string, unknown>[] = [];
  for (let i = to - 1; i >= from; i--)
    out.push(renderMessage(world, world.messageAt(channel.id, i), origin, withContent));
  return out;
}

/** The index of the channel's first message whose snowflake is above `id`. */
function firstAbove(world: FakeWorld, channelId: string, id: bigint): number {
  let lo = 0;
  let hi = world.messageCount(channelId);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (BigInt(messageId(world.messageAt(channelId, mid))) > id) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function renderMessage(world: FakeWorld, m: FakeMessage, origin: string, withContent: boolean) {
  const channel = world.channel(m.channelId);
  const channelId = channel === undefined ? m.channelId : idsOf(world).channelId(channel);
  const mentioned = m.mentions.map((id) => world.user(id)).filter((u) => u !== undefined);
  let content = m.text;
  // Discord's raw text names a mention `<@id>`; the world writes `@<name>`.
  const ids = idsOf(world);
  for (const u of mentioned) content = content.split(`@${u.name}`).join(`<@${ids.user(u.id)}>`);
  const sender = world.user(m.senderId);
  const parentIndex = m.parentId === undefined ? -1 : world.indexOfId(m.channelId, m.parentId);
  const parent = parentIndex < 0 ? undefined : world.messageAt(m.channelId, parentIndex);
  return {
    id: messageId(m),
    channel_id: channelId,
    type: parent === undefined ? 0 : 19,
    content: withContent ? content : '',
    timestamp: iso(m.sentAtMs),
    edited_timestamp: m.editedAtMs === undefined ? null : iso(m.editedAtMs),
    tts: false,
    pinned: false,
    mention_everyone: false,
    author:
      sender === undefined
        ? {
            id: ids.user(m.senderId),
            username: 'unknown',
            discriminator: '0',
            avatar: null,
            global_name: null,
            public_flags: 0,
            flags: 0,
            primary_guild: null,
          }
        : renderUser(world, sender),
    mentions: mentioned.map((u) => renderUser(world, u)),
    mention_roles: [],
    attachments: m.attachments.map((a, n) => ({
      // Snowflakes, as Discord's attachment ids are: the message's time, told apart by place.
      id: snowflakeOf(m.sentAtMs, (m.seq * 4 + n) & 0x3fffff),
      filename: a.name,
      size: a.size,
      url: `${origin}${a.path}`,
      proxy_url: `${origin}${a.path}`,
      content_type: a.contentType,
    })),
    embeds: [],
    components: [],
    flags: 0,
    message_reference:
      parent === undefined
        ? undefined
        : { type: 0, message_id: messageId(parent), channel_id: channelId, guild_id: GUILD_ID },
  };
}

function clamp(v: string | null, min: number, max: number, fallback: number): number {
  const n = v === null ? fallback : Number(v);
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}
