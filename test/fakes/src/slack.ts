/**
 * The fake of Slack's Web API (a test double): `/<method>` as under
 * `https://slack.com/api/`, the token as `Authorization: Bearer`, HTTP 200 with `ok: false` for its
 * refusals, `response_metadata.next_cursor` paging, history newest first, 429 with `Retry-After` in
 * seconds. Files are served at `/files-pri/<team>-<file id>/<name>` with the token; without it, as
 * Slack does, a redirect to the workspace's sign-in page (HTML). A `limit` of 1000 or more is refused
 * with `invalid_limit` (Slack's SDK, `CursorPaginationEnabled.limit`: "Must be an integer with a max
 * value of 999"); `faults.sourceError` answers Slack's transient errors (`internal_error`...).
 */
import { randomBytes } from 'node:crypto';
import {
  indexOfTs,
  renderConversation,
  renderMessage,
  renderUser,
  SLACK_TYPE,
  SlackIds,
  TEAM,
  Threads,
} from './slack-render.js';
import type { FakeContext, FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

/** One token per fake, so a leak in a test's output is the token, not a constant found by chance. */
const tokenOf = (world: FakeWorld): string =>
  world.memo('slack:token', () => `xoxb-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`);

type Params = Record<string, string>;
/** What a method renders with: the world's threads, its ids in Slack's form, the fake's origin. */
interface Render {
  threads: Threads;
  ids: SlackIds;
  origin: string;
}
type Method = (p: Params, world: FakeWorld, at: Render) => FakeReply;

const ok = (body: Record<string, unknown>, next?: string): FakeReply => ({
  status: 200,
  body: { ok: true, ...body, response_metadata: { next_cursor: next ?? '' } },
});
const refuse = (error: string, extra: Record<string, unknown> = {}): FakeReply => ({
  status: 200,
  body: { ok: false, error, ...extra },
});

/** Slack's cursors are opaque base64; the fake's hold the next index. */
const cursorOf = (index: number) => Buffer.from(`next:${index}`).toString('base64');
function indexOfCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return 0;
  const match = /^next:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match === null ? undefined : Number(match[1]);
}
const limitOf = (p: Params, fallback: number, max: number) =>
  Math.min(max, Math.max(1, Number.parseInt(p.limit ?? '', 10) || fallback));

function pageOf<T>(list: readonly T[], p: Params, fallback: number, max: number) {
  const start = indexOfCursor(p.cursor);
  if (start === undefined) return undefined;
  const end = Math.min(list.length, start + limitOf(p, fallback, max));
  return { items: list.slice(start, end), next: end < list.length ? cursorOf(end) : undefined };
}

/** Slack's SDK types every cursor-paged method's `limit`: an integer, at most 999. */
const MAX_LIMIT = 999;
const badLimit = (p: Params) =>
  p.limit !== undefined && !(/^\d+$/.test(p.limit) && Number(p.limit) >= 1 && Number(p.limit) <= MAX_LIMIT);

/** The `ok: false` errors Slack's method references give for a failure on its side that may pass. */
const TRANSIENT = ['internal_error', 'fatal_error', 'request_timeout'];

const METHODS: Record<string, Method> = {
  'users.list': (p, world, at) => {
    const page = pageOf(world.users, p, 100, MAX_LIMIT);
    if (page === undefined) return refuse('invalid_cursor');
    return ok({ members: page.items.map((u) => renderUser(u, at.ids, at.origin)) }, page.next);
  },
  'conversations.list': (p, world, at) => {
    const types = new Set((p.types ?? 'public_channel').split(','));
    const list = world.channels.filter((c) => types.has(SLACK_TYPE[c.kind]));
    const page = pageOf(list, p, 100, MAX_LIMIT);
    if (page === undefined) return refuse('invalid_cursor');
    return ok({ channels: page.items.map((c) => renderConversation(c, at.ids)) }, page.next);
  },
  'conversations.members': (p, world, at) => {
    const channel = channelOf(p, world, at);
    if (channel === undefined) return refuse('channel_not_found');
    const page = pageOf(
      channel.members.map((m) => at.ids.user(m.userId)),
      p,
      100,
      MAX_LIMIT,
    );
    return page ? ok({ members: page.items }, page.next) : refuse('invalid_cursor');
  },
  'conversations.history': history,
  'conversations.replies': replies,
};

function channelOf(p: Params, world: FakeWorld, at: Render) {
  const id = at.ids.worldOf(p.channel ?? '');
  return id === undefined ? undefined : world.channel(id);
}

/** Top-level messages (replies stay in their threads), newest first, within `oldest`/`latest`. */
function history(p: Params, world: FakeWorld, at: Render): FakeReply {
  const channelId = channelOf(p, world, at)?.id;
  if (channelId === undefined) return refuse('channel_not_found');
  const inclusive = p.inclusive === 'true' || p.inclusive === '1';
  const oldest = p.oldest === undefined ? undefined : Number(p.oldest);
  const latest = p.latest === undefined ? undefined : Number(p.latest);
  const inRange = (ts: number) =>
    (oldest === undefined || ts > oldest || (inclusive && ts === oldest)) &&
    (latest === undefined || ts < latest || (inclusive && ts === latest));
  const low = oldest === undefined ? 0 : world.indexAtOrAfter(channelId, Math.floor(oldest * 1000));
  const count = world.messageCount(channelId);
  const from = p.cursor ? indexOfCursor(p.cursor) : count;
  if (from === undefined) return refuse('invalid_cursor');
  const limit = limitOf(p, 100, MAX_LIMIT);
  const messages: Record<string, unknown>[] = [];
  let i = Math.min(from, count) - 1;
  for (; i >= low && messages.length < limit; i--) {
    const m = world.messageAt(channelId, i);
    if (m.parentId !== undefined) continue;
    const rendered = renderMessage(m, world, at);
    if (inRange(Number(rendered.ts))) messages.push(rendered);
  }
  const more = i >= low;
  return {
    status: 200,
    body: {
      ok: true,
      messages,
      has_more: more,
      pin_count: 0,
      response_metadata: { next_cursor: more ? cursorOf(i + 1) : '' },
    },
  };
}

/** A thread: its parent first, then its replies oldest first, paged by `limit`. */
function replies(p: Params, world: FakeWorld, at: Render): FakeReply {
  const channelId = channelOf(p, world, at)?.id;
  if (channelId === undefined) return refuse('channel_not_found');
  const index = indexOfTs(world, channelId, p.ts ?? '');
  if (index < 0) return refuse('thread_not_found');
  const parent = world.messageAt(channelId, index);
  const oldest = p.oldest === undefined ? undefined : Number(p.oldest);
  const thread = [index, ...at.threads.repliesOf(channelId, parent.id)]
    .map((i) => renderMessage(world.messageAt(channelId, i), world, at))
    .filter((m, n) => n === 0 || oldest === undefined || Number(m.ts) >= oldest);
  const page = pageOf(thread, p, 100, MAX_LIMIT);
  if (page === undefined) return refuse('invalid_cursor');
  return {
    status: 200,
    body: { ok: true, messages: page.items, has_more: page.next !== undefined, ...meta(page.next) },
  };
}

const meta = (next: string | undefined) => ({ response_metadata: { next_cursor: next ?? '' } });

function renderWith({ world, origin }: FakeContext): Render {
  const threads = world.memo('slack:threads', () => new Threads(world));
  return { threads, ids: world.memo('slack:ids', () => new SlackIds(world)), origin };
}

const FILE_PATH = new RegExp(`^/files-pri/${TEAM}-([^/]+)/`);

/** A file with the token; without it, the redirect to the sign-in page Slack gives a browser. */
function file(request: FakeRequest, { world, origin }: FakeContext): FakeReply | undefined {
  const id = FILE_PATH.exec(request.url.pathname)?.[1];
  if (id === undefined) return undefined;
  if (request.headers.authorization !== `Bearer ${tokenOf(world)}`) {
    const redir = encodeURIComponent(request.url.pathname);
    return { status: 302, headers: { location: `${origin}/?redir=${redir}` } };
  }
  const media = world.media(decodeURIComponent(id));
  if (media === undefined) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'file not found' };
  return { status: 200, headers: { 'content-type': media.contentType }, body: media.bytes };
}

const SIGN_IN_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in | Slack</title></head>' +
  '<body><h1>Sign in to Fake Workspace</h1><form action="/signin" method="post">' +
  '<input type="email" name="email"><button>Sign in with email</button></form></body></html>\n';

function paramsOf(request: FakeRequest): Params {
  const out: Params = {};
  for (const [k, v] of request.url.searchParams) out[k] = v;
  if (typeof request.body === 'object' && request.body !== null)
    for (const [k, v] of Object.entries(request.body)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

const isBrowserPath = (pathname: string) => pathname === '/' || pathname.startsWith('/files-pri/');

export const fake: FakeSource = {
  name: 'slack',
  idStyle: 'slack',
  credentials: ({ world }) => ({ SLACK_TOKEN: tokenOf(world) }),
  // The file host and the sign-in page answer without the token (the route decides); methods do not.
  authorized: (request, { world }) =>
    isBrowserPath(request.url.pathname) || request.headers.authorization === `Bearer ${tokenOf(world)}`,
  unauthorized: () => refuse('invalid_auth'),
  rateLimited: (retryAfterMs) => ({
    status: 429,
    headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
    body: { ok: false, error: 'ratelimited' },
  }),
  route(request, ctx) {
    const { pathname } = request.url;
    if (pathname === '/' && request.url.searchParams.has('redir'))
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: SIGN_IN_PAGE };
    if (pathname.startsWith('/files-pri/')) return file(request, ctx);
    const method = METHODS[pathname.slice(1)];
    if (method === undefined) return pathname.includes('.') ? refuse('unknown_method') : undefined;
    const params = paramsOf(request);
    if (badLimit(params)) return refuse('invalid_limit');
    return method(params, ctx.world, renderWith(ctx));
  },
  transientError(request, pick) {
    const name = request.url.pathname.slice(1);
    if (METHODS[name] === undefined) return undefined;
    // conversations.members has one more of its own (its error list: `fetch_members_failed`).
    const kinds = name === 'conversations.members' ? [...TRANSIENT, 'fetch_members_failed'] : TRANSIENT;
    return refuse(kinds[Math.floor(pick * kinds.length)]);
  },
};
