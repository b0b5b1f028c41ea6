/**
 * The fake of Sendbird's Platform API v3 (a test double): users, group and
 * open channels with their members, and messages anchored on `message_ts`, with the real paging (lists
 * by an opaque `token`, up to 100 a page; messages up to 200 either side of the anchor), the `Api-Token`
 * check and Sendbird's error bodies, and its 429 with `X-RateLimit-*` headers. A page token expires an
 * hour after it was given (400109; Sendbird documents no lifetime), and the members route lists only
 * activated members unless `member_active_mode_filter` says otherwise (its OpenAPI's default).
 */
import {
  groupChannelObject,
  isOpen,
  type Json,
  memberObject,
  messageObject,
  openChannelObject,
  userObject,
} from './sendbird-shapes.js';
import type { FakeChannel, FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

const APP_ID = 'FAKE-APP-0001';
const API_TOKEN = 'fake-sendbird-api-token-2b8e61f04c7d93a5';

/** Sendbird's error body: HTTP 400 for a client's mistake, with its own code (Platform API error codes). */
const error = (status: number, code: number, message: string): FakeReply => ({
  status,
  body: { error: true, code, message },
});

export const fake: FakeSource = {
  name: 'sendbird',
  idStyle: 'slug',
  credentials: () => ({ SENDBIRD_APP_ID: APP_ID, SENDBIRD_API_TOKEN: API_TOKEN }),
  authorized: (request) => header(request, 'api-token') === API_TOKEN,
  unauthorized: () => error(400, 400401, 'Invalid value: "Api-Token".'),
  rateLimited(retryAfterMs, limitPerMinute) {
    const retryAfter = (retryAfterMs / 1000).toFixed(3);
    return {
      status: 429,
      headers: {
        'X-RateLimit-Limit': `${limitPerMinute};w=60`,
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': retryAfter,
        'X-RateLimit-RetryAfter': retryAfter,
      },
      body: {
        error: true,
        code: 500910,
        message: `Too many requests (scope: app, limit: ${limitPerMinute};w=60, retry_after: ${retryAfter}s)`,
      },
    };
  },
  rateHeaders: (remaining, limitPerMinute, resetAtMs, ctx) => ({
    'X-RateLimit-Limit': `${limitPerMinute};w=60`,
    'X-RateLimit-Remaining': String(remaining),
    // Sendbird gives the seconds left in the window, not a point in time.
    'X-RateLimit-Reset': Math.max(0, (resetAtMs - ctx.now()) / 1000).toFixed(3),
  }),
  route(request, ctx) {
    const { world } = ctx;
    if (request.method !== 'GET') return undefined;
    const path = request.url.pathname;
    const nowMs = ctx.now();
    if (path === '/v3/users') return users(request, world, nowMs);
    if (path === '/v3/group_channels') return channelList(request, world, false, nowMs);
    if (path === '/v3/open_channels') return channelList(request, world, true, nowMs);
    const found = /^\/v3\/(group_channels|open_channels)\/([^/]+)\/(members|messages)$/.exec(path);
    if (found === null) return undefined;
    const channel = world.channel(decodeURIComponent(found[2]));
    const open = found[1] === 'open_channels';
    if (channel === undefined || channel.deletedAtMs !== undefined || isOpen(world, channel) !== open) {
      return error(400, 400201, `"channel_url" not found.`);
    }
    if (found[3] === 'members') return open ? undefined : members(request, world, channel, nowMs);
    return messages(request, world, channel, open);
  },
};

function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `limit` as Sendbird reads it: 1 to `max`, `fallback` when absent. */
function limitOf(request: FakeRequest, name: string, fallback: number, max: number): number | FakeReply {
  const raw = request.url.searchParams.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) return error(400, 400111, `Invalid value: "${name}".`);
  return Math.min(n, max);
}

/** How long a page token lives in the fake: Sendbird documents no lifetime, only the error (400109). */
const TOKEN_TTL_MS = 60 * 60 * 1000;

/** A page of `all` from the opaque token: the next token is '' on the last page, as Sendbird writes it. */
function paged<T>(
  request: FakeRequest,
  all: readonly T[],
  key: string,
  render: (item: T) => Json,
  nowMs: number,
): FakeReply {
  const limit = limitOf(request, 'limit', 10, 100);
  if (typeof limit !== 'number') return limit;
  const token = request.url.searchParams.get('token');
  let offset = 0;
  if (token) {
    const [decoded, givenAt] = Buffer.from(token, 'base64url')
      .toString('utf8')
      .replace(/^o:/, '')
      .split(':')
      .map(Number);
    if (!Number.isInteger(decoded) || decoded < 0) return error(400, 400109, 'The page token is invalid.');
    if (!(nowMs - givenAt <= TOKEN_TTL_MS)) return error(400, 400109, 'The page token has expired.');
    offset = decoded;
  }
  const end = Math.min(all.length, offset + Math.max(1, limit));
  const next = end < all.length ? Buffer.from(`o:${end}:${nowMs}`, 'utf8').toString('base64url') : '';
  return { status: 200, body: { [key]: all.slice(offset, end).map(render), next } };
}

function users(request: FakeRequest, world: FakeWorld, nowMs: number): FakeReply {
  const mode = request.url.searchParams.get('active_mode') ?? 'activated';
  const wanted = world.users.filter((u) =>
    mode === 'all' ? true : mode === 'deactivated' ? u.deactivated === true : u.deactivated !== true,
  );
  return paged(request, wanted, 'users', userObject, nowMs);
}

function channelList(request: FakeRequest, world: FakeWorld, open: boolean, nowMs: number): FakeReply {
  const showMembers = request.url.searchParams.get('show_member') === 'true';
  const showEmpty = request.url.searchParams.get('show_empty') === 'true';
  const wanted = world.channels.filter(
    (c) =>
      c.deletedAtMs === undefined && isOpen(world, c) === open && (open || showEmpty || world.messageCount(c.id) > 0),
  );
  return open
    ? paged(request, wanted, 'channels', (c) => openChannelObject(world, c), nowMs)
    : paged(request, wanted, 'channels', (c) => groupChannelObject(world, c, showMembers), nowMs);
}

function members(request: FakeRequest, world: FakeWorld, channel: FakeChannel, nowMs: number): FakeReply {
  const mode = request.url.searchParams.get('member_active_mode_filter') ?? 'activated';
  const wanted = channel.members.filter((m) => {
    const deactivated = world.user(m.userId)?.deactivated === true;
    return mode === 'all' || (mode === 'deactivated' ? deactivated : !deactivated);
  });
  return paged(request, wanted, 'members', (m) => memberObject(world, m), nowMs);
}

/**
 * Messages around `message_ts` (ms): `prev_limit` before it and `next_limit` at or after it (up to 200
 * each), oldest first; `include=false` leaves out those sent at the anchor itself; replies only with
 * `include_reply_type=ALL`.
 */
function messages(request: FakeRequest, world: FakeWorld, channel: FakeChannel, open: boolean): FakeReply {
  const q = request.url.searchParams;
  const ts = Number(q.get('message_ts'));
  if (q.get('message_ts') === null || !Number.isFinite(ts)) {
    return error(400, 400105, '"message_ts" or "message_id" is required.');
  }
  const prev = limitOf(request, 'prev_limit', 15, 200);
  const next = limitOf(request, 'next_limit', 15, 200);
  if (typeof prev !== 'number') return prev;
  if (typeof next !== 'number') return next;
  const include = q.get('include') !== 'false';
  const replies = (q.get('include_reply_type') ?? 'none').toLowerCase() === 'all';
  const count = world.messageCount(channel.id);
  const anchor = world.indexAtOrAfter(channel.id, ts);
  const wanted = (i: number) => {
    const m = world.messageAt(channel.id, i);
    return (replies || m.parentId === undefined) && (include || m.sentAtMs !== ts) ? m : undefined;
  };
  const before = [];
  for (let i = anchor - 1; i >= 0 && before.length < prev; i--) {
    const m = wanted(i);
    if (m !== undefined) before.unshift(m);
  }
  const after = [];
  for (let i = anchor; i < count && after.length < next; i++) {
    const m = wanted(i);
    if (m !== undefined) after.push(m);
  }
  const origin = request.url.origin;
  const list = [...before, ...after].map((m) => messageObject(world, m, origin, open));
  return { status: 200, body: { messages: q.get('reverse') === 'true' ? list.reverse() : list } };
}
