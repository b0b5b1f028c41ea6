/**
 * The fake of Discord's API v10 for `pull discord` (a test double): the
 * routes the pull reads, with Discord's paging (`after`/`before` snowflakes, archived threads by
 * archive time, members by user id), its `Authorization: Bot <token>` check, and its 429 (`Retry-After`,
 * `X-RateLimit-*` with a bucket, a body `{"retry_after", "global"}`). Paths may carry `/api/v10`.
 * Suffixes to the token play bots without a privileged intent or a permission, and combine
 * (`<token>-no-history-no-manage-threads`): `-no-content` lacks Message Content (its application's flags
 * lack it and every message's text is empty, as Discord does), `-no-members` lacks Server Members (the
 * member list answers 403 Missing Access), `-no-history` lacks Read Message History in the first text
 * channel (its messages answer `200 []`, as Get Channel Messages says; its archived-thread lists 403),
 * `-no-manage-threads` lacks Manage
 * Threads (`/threads/archived/private` answers 403 Missing Permissions; the bot joined every other private
 * thread, which `/users/@me/threads/archived/private` lists by id).
 * A request without a valid `User-Agent` (`DiscordBot ($url, $versionNumber)`, the API reference's "User
 * Agent") is blocked as Discord may: 403 with code 40333. What Discord answers for private archived
 * threads on an announcement channel is not documented: the fake's one announcement channel answers 400.
 */
import {
  ANNOUNCEMENT_ID,
  activeThreads,
  archivedThreads,
  GUILD_ID,
  guildChannels,
  idsOf,
  joinedPrivateThreads,
  members,
  messages,
  renderFullGuild,
  renderGuild,
  renderUser,
} from './discord-render.js';
import type { FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

const TOKEN = 'fake-discord-bot-token';
const LACKS = ['content', 'members', 'history', 'manage-threads'] as const;
type Lack = (typeof LACKS)[number];
const MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19);

const tokenOf = (r: FakeRequest): string | undefined => {
  const h = r.headers.authorization;
  const value = Array.isArray(h) ? h[0] : h;
  return value?.startsWith('Bot ') ? value.slice(4) : undefined;
};

/** What the bot of a token lacks (`-no-<what>` suffixes), or undefined for a token the fake does not know. */
function lacksOf(token: string | undefined): Set<Lack> | undefined {
  if (token === undefined || !token.startsWith(TOKEN)) return undefined;
  const rest = token.slice(TOKEN.length);
  const lacks = new Set<Lack>();
  for (const part of rest.split('-no-').slice(1)) {
    if (!(LACKS as readonly string[]).includes(part)) return undefined;
    lacks.add(part as Lack);
  }
  return rest === '' || rest.startsWith('-no-') ? lacks : undefined;
}

const DISCORD_BOT_AGENT = /^DiscordBot \(https?:\/\/[^\s,]+, [^\s)]+\)/;
const blocked: FakeReply = { status: 403, body: { message: 'internal network error', code: 40333 } };
const missingPermissions: FakeReply = { status: 403, body: { message: 'Missing Permissions', code: 50013 } };
const wrongType: FakeReply = {
  status: 400,
  body: { message: 'Cannot execute action on this channel type', code: 50024 },
};

const json = (body: unknown): FakeReply => ({ status: 200, body });
const missingAccess: FakeReply = { status: 403, body: { message: 'Missing Access', code: 50001 } };
const unknownChannel: FakeReply = { status: 404, body: { message: 'Unknown Channel', code: 10003 } };

export const fake: FakeSource = {
  name: 'discord',
  idStyle: 'snowflake',
  credentials: () => ({ DISCORD_BOT_TOKEN: TOKEN }),
  authorized: (r) => lacksOf(tokenOf(r)) !== undefined,
  unauthorized: () => ({ status: 401, body: { message: '401: Unauthorized', code: 0 } }),
  rateLimited(retryAfterMs, limitPerMinute, ctx) {
    const seconds = retryAfterMs / 1000;
    return {
      status: 429,
      headers: {
        'retry-after': String(Math.ceil(seconds)),
        'x-ratelimit-limit': String(limitPerMinute),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String((ctx.now() + retryAfterMs) / 1000),
        'x-ratelimit-reset-after': seconds.toFixed(3),
        'x-ratelimit-bucket': 'fake-bucket',
        'x-ratelimit-scope': 'user',
      },
      // Discord's RatelimitedResponse: an Error (`code` 0 for a 429, `message`) with the wait and its scope.
      body: { code: 0, message: 'You are being rate limited.', retry_after: Number(seconds.toFixed(3)), global: false },
    };
  },
  rateHeaders(remaining, limitPerMinute, resetAtMs, ctx) {
    return {
      'x-ratelimit-bucket': 'fake-bucket',
      'x-ratelimit-limit': String(limitPerMinute),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': (resetAtMs / 1000).toFixed(3),
      'x-ratelimit-reset-after': (Math.max(0, resetAtMs - ctx.now()) / 1000).toFixed(3),
    };
  },
  route(r, { world }) {
    const agent = r.headers['user-agent'];
    if (typeof agent !== 'string' || !DISCORD_BOT_AGENT.test(agent)) return blocked;
    if (r.method !== 'GET') return undefined;
    const path = r.url.pathname.replace(/^\/api\/v10(?=\/)/, '').replace(/\/+$/, '');
    const lacks = lacksOf(tokenOf(r)) ?? new Set<Lack>();
    if (lacks.has('members') && /^\/guilds\/\d+\/members$/.test(path)) return missingAccess;
    return routeGet(path, r, world, lacks);
  },
};

/** `GET /applications/@me` (Discord's PrivateApplicationResponse): every field it requires. */
function renderApplication(world: FakeWorld, flags: number): Record<string, unknown> {
  const owner = world.users[0];
  return {
    id: GUILD_ID,
    name: 'Fake Migrator',
    icon: null,
    description: '',
    type: null,
    bot_public: false,
    verify_key: '0'.repeat(64),
    flags,
    flags_new: String(flags),
    redirect_uris: [],
    interactions_endpoint_url: null,
    role_connections_verification_url: null,
    owner: owner === undefined ? undefined : renderUser(world, owner),
    approximate_guild_count: 1,
    approximate_user_install_count: 0,
    approximate_user_authorization_count: 0,
    explicit_content_filter: 0,
    team: null,
    eligible_oauth2_scopes: [],
  };
}

/** The Discord id of the first text channel: where `-no-history` lacks Read Message History. */
function firstTextChannel(world: FakeWorld): string | undefined {
  const first = world.channels.find((c) => c.kind === 'public');
  return first === undefined ? undefined : idsOf(world).channelId(first);
}

function routeGet(path: string, r: FakeRequest, world: FakeWorld, lacks: ReadonlySet<Lack>): FakeReply | undefined {
  const content = !lacks.has('content');
  const q = r.url.searchParams;
  if (path === '/applications/@me') return json(renderApplication(world, content ? MESSAGE_CONTENT_FLAGS : 0));
  if (path === '/users/@me/guilds') return json([renderGuild()]);
  const guild = /^\/guilds\/(\d+)(\/channels|\/threads\/active|\/members)?$/.exec(path);
  if (guild !== null) {
    if (guild[1] !== GUILD_ID) return { status: 404, body: { message: 'Unknown Guild', code: 10004 } };
    if (guild[2] === undefined) return json(renderFullGuild(world));
    if (guild[2] === '/channels') return json(guildChannels(world));
    if (guild[2] === '/threads/active') return json(activeThreads(world));
    return json(members(world, q));
  }
  const archived = /^\/channels\/(\d+)(\/users\/@me)?\/threads\/archived\/(public|private)$/.exec(path);
  if (archived !== null) {
    const [, parent, joined, kind] = archived;
    // Every archived-thread list requires Read Message History (List Public / Private Archived Threads).
    if (lacks.has('history') && parent === firstTextChannel(world)) return missingAccess;
    if (kind === 'private' && parent === ANNOUNCEMENT_ID) return wrongType;
    if (joined !== undefined) return kind === 'private' ? json(joinedPrivateThreads(world, parent, q)) : undefined;
    if (kind === 'private' && lacks.has('manage-threads')) return missingPermissions;
    return json(archivedThreads(world, parent, kind as 'public' | 'private', q));
  }
  const history = /^\/channels\/([^/]+)\/messages$/.exec(path);
  if (history !== null) {
    if (history[1] === ANNOUNCEMENT_ID) return json([]);
    const channel = idsOf(world).channel(history[1]);
    if (channel === undefined) return unknownChannel;
    // Without Read Message History, Get Channel Messages answers no messages, not a refusal.
    if (lacks.has('history') && history[1] === firstTextChannel(world)) return json([]);
    return json(messages(world, channel, q, r.url.origin, content));
  }
  if (/^\/channels\/[^/]+$/.test(path)) return missingAccess;
  return undefined;
}
