/**
 * The fake of Discord's API v10 for `pull discord` (a test double): the
 * routes the pull reads, with Discord's paging (`after`/`before` snowflakes, archived threads by
 * archive time, members by user id), its `Authorization: Bot <token>` check, and its 429 (`Retry-After`,
 * `X-RateLimit-*` with a bucket, a body `{"retry_after", "global"}`). Paths may carry `/api/v10`.
 * Two more tokens play bots without a privileged intent: `<token>-no-content` lacks Message Content (its
 * application's flags lack it and every message's text is empty, as Discord does), `<token>-no-members`
 * lacks Server Members (the member list answers 403 Missing Access).
 */
import {
  activeThreads,
  archivedThreads,
  GUILD_ID,
  guildChannels,
  idsOf,
  members,
  messages,
  renderFullGuild,
  renderGuild,
  renderUser,
} from './discord-render.js';
import type { FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

const TOKEN = 'fake-discord-bot-token';
const NO_CONTENT = `${TOKEN}-no-content`;
const NO_MEMBERS = `${TOKEN}-no-members`;
const MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19);

const tokenOf = (r: FakeRequest): string | undefined => {
  const h = r.headers.authorization;
  const value = Array.isArray(h) ? h[0] : h;
  return value?.startsWith('Bot ') ? value.slice(4) : undefined;
};

const json = (body: unknown): FakeReply => ({ status: 200, body });
const missingAccess: FakeReply = { status: 403, body: { message: 'Missing Access', code: 50001 } };
const unknownChannel: FakeReply = { status: 404, body: { message: 'Unknown Channel', code: 10003 } };

export const fake: FakeSource = {
  name: 'discord',
  idStyle: 'snowflake',
  credentials: () => ({ DISCORD_BOT_TOKEN: TOKEN }),
  authorized: (r) => {
    const token = tokenOf(r);
    return token === TOKEN || token === NO_CONTENT || token === NO_MEMBERS;
  },
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
    if (r.method !== 'GET') return undefined;
    const path = r.url.pathname.replace(/^\/api\/v10(?=\/)/, '').replace(/\/+$/, '');
    const token = tokenOf(r);
    if (token === NO_MEMBERS && /^\/guilds\/\d+\/members$/.test(path)) return missingAccess;
    return routeGet(path, r, world, token !== NO_CONTENT);
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

function routeGet(path: string, r: FakeRequest, world: FakeWorld, content: boolean): FakeReply | undefined {
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
  const archived = /^\/channels\/(\d+)\/threads\/archived\/(public|private)$/.exec(path);
  if (archived !== null) return json(archivedThreads(world, archived[1], archived[2] as 'public' | 'private', q));
  const history = /^\/channels\/([^/]+)\/messages$/.exec(path);
  if (history !== null) {
    const channel = idsOf(world).channel(history[1]);
    if (channel === undefined) return unknownChannel;
    return json(messages(world, channel, q, r.url.origin, content));
  }
  if (/^\/channels\/[^/]+$/.test(path)) return missingAccess;
  return undefined;
}
