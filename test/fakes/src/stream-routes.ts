/**
 * The fake Stream API's routes over the world, with Stream's page limits: Query Users (keyset on id,
 * 100), Query Channels (30; `created_at`/`cid` filters; an offset past 1000 answers as 1000 does, as
 * reports of the real one say), Query Members (100; `created_at`/`user_id` filters; offset at most
 * 10,000, QueryMembersPayload's maximum), the channel query's messages (300: the latest, or around
 * `id_lt`/`id_gt`/`created_at_after_or_equal`), a thread's replies (300: the latest unless sorted by
 * `created_at` ascending, as Stream's "Get the latest 20 replies"), Search (100, a `next` cursor) and
 * one message; and the CDN's signed, expiring links. A deleted channel (`DELETE /__fake/channels/<id>`)
 * is left out of lists and answers 404, code 16.
 */
import { timingSafeEqual } from 'node:crypto';
import {
  CDN_PATH,
  channelIdentity,
  DEFAULT_LINK_TTL_MS,
  linkSignature,
  renderChannel,
  renderMember,
  renderMessage,
  renderUser,
  streamError,
} from './stream-render.js';
import { ThreadIndex } from './stream-threads.js';
import type { FakeChannel, FakeContext, FakeReply, FakeRequest, FakeWorld } from './types.js';

type Json = Record<string, unknown>;

interface WorldState {
  threads: ThreadIndex;
  /** cid -> world channel, rebuilt when channels are added. */
  byCid: Map<string, FakeChannel>;
}

/** The channel types whose search is off (Update Channel Type, `PUT /channeltypes/{name}` `{"search": false}`). */
const unsearchable = (world: FakeWorld) => world.memo('stream:unsearchable', () => new Set<string>());

function stateOf(world: FakeWorld): WorldState {
  const held = world.memo('stream:state', () => ({ state: undefined as WorldState | undefined }));
  let s = held.state;
  if (s === undefined || s.byCid.size !== world.channels.length) {
    const byCid = new Map(world.channels.map((c) => [channelIdentity(c).cid, c] as const));
    s = held.state = { threads: s?.threads ?? new ThreadIndex(world), byCid };
  }
  return s;
}

const ok = (body: Json): FakeReply => ({ status: 200, body: { ...body, duration: '1.00ms' } });
const bad = (message: string): FakeReply => streamError(400, 4, message);
const capped = (v: unknown, max: number, fallback: number) =>
  typeof v === 'number' && v > 0 ? Math.min(v, max) : fallback;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const timeOf = (v: unknown): number | undefined => (typeof v === 'string' ? Date.parse(v) : undefined);

/** Whether `value` passes the filter operators the fake honours on one field ($eq, $gt, $gte, $lt, $lte). */
function passes<T extends number | string>(value: T, condition: unknown, read: (v: unknown) => T | undefined) {
  if (condition === undefined) return true;
  const ops = typeof condition === 'object' && condition !== null ? (condition as Json) : { $eq: condition };
  const at = (op: string) => read(ops[op]);
  const [eq, gt, gte, lt, lte] = ['$eq', '$gt', '$gte', '$lt', '$lte'].map(at);
  return (
    (eq === undefined || value === eq) &&
    (gt === undefined || value > gt) &&
    (gte === undefined || value >= gte) &&
    (lt === undefined || value < lt) &&
    (lte === undefined || value <= lte)
  );
}
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
/** Stream's answer for a channel that is not there. */
const notFound = (what: string): FakeReply => ({
  status: 404,
  body: { code: 16, message: `${what} failed with error: "Not Found"`, StatusCode: 404, duration: '0.00ms' },
});
/** The offset Stream's Query Channels honours at most; past it the same page comes again. */
const CHANNELS_OFFSET_MAX = 1000;
const MEMBERS_OFFSET_MAX = 10_000;

function payloadOf(request: FakeRequest): Json | undefined {
  const text = request.url.searchParams.get('payload');
  if (text === null) return {};
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function streamRoutes(request: FakeRequest, ctx: FakeContext, secret: string) {
  const { world } = ctx;
  const path = request.url.pathname;
  const state = stateOf(world);
  const nowMs = ctx.now();
  const sign = { origin: ctx.origin, secret, nowMs, ttlMs: ctx.linkTtlMs ?? DEFAULT_LINK_TTL_MS };
  const message = (channel: FakeChannel, index: number) => {
    const m = world.messageAt(channel.id, index);
    const cid = channelIdentity(channel).cid;
    return renderMessage(m, cid, state.threads.replyCount(channel.id, m.id), world, sign);
  };

  if (request.method === 'GET' && path.startsWith(CDN_PATH)) return cdn(request, world, secret, nowMs);
  if (request.method === 'GET' && path === '/users') {
    const p = payloadOf(request);
    if (p === undefined) return bad('QueryUsers failed with error: "payload is not valid JSON"');
    const filter = obj(p.filter_conditions);
    const after = obj(filter.id).$gt;
    const since = timeOf(obj(filter.updated_at).$gte);
    const users = [...world.users]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .filter((u) => (typeof after !== 'string' || u.id > after) && (since === undefined || u.updatedAtMs >= since))
      .filter((u) => p.include_deactivated_users === true || !u.deactivated)
      .slice(0, capped(p.limit, 100, 30));
    return ok({ users: users.map(renderUser) });
  }
  if (request.method === 'POST' && path === '/channels') {
    const body = obj(request.body);
    const filter = obj(body.filter_conditions);
    const offset = Math.min(typeof body.offset === 'number' ? body.offset : 0, CHANNELS_OFFSET_MAX);
    const channels = [...world.channels]
      .filter((c) => c.deletedAtMs === undefined)
      .filter((c) => passes(c.createdAtMs, filter.created_at, timeOf))
      .filter((c) => passes(channelIdentity(c).cid, filter.cid, text))
      .sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1))
      .slice(offset, offset + capped(body.limit, 30, 10));
    return ok({ channels: channels.map((c) => ({ channel: renderChannel(c, world), members: [], messages: [] })) });
  }
  if (request.method === 'GET' && path === '/members') {
    const p = payloadOf(request);
    const channel = p && state.byCid.get(`${String(p.type)}:${String(p.id)}`);
    if (channel === undefined || channel.deletedAtMs !== undefined) return notFound('QueryMembers');
    const filter = obj(p?.filter_conditions);
    const offset = typeof p?.offset === 'number' ? p.offset : 0;
    if (offset > MEMBERS_OFFSET_MAX) return bad(`QueryMembers failed with error: "offset must be <= 10000"`);
    const members = channel.members
      .filter((m) => passes(m.joinedAtMs, filter.created_at, timeOf) && passes(m.userId, filter.user_id, text))
      .sort((a, b) => a.joinedAtMs - b.joinedAtMs)
      .slice(offset, offset + capped(p?.limit, 300, 100));
    return ok({ members: members.map((m) => renderMember(m, channel, world)) });
  }
  const query = /^\/channels\/([^/]+)\/([^/]+)\/query$/.exec(path);
  if (request.method === 'POST' && query) {
    const channel = state.byCid.get(`${decodeURIComponent(query[1])}:${decodeURIComponent(query[2])}`);
    if (channel?.deletedAtMs !== undefined) return notFound('GetOrCreateChannel');
    if (channel === undefined)
      return bad(
        'GetOrCreateChannel failed with error: "either data.created_by or data.created_by_id must be provided"',
      );
    const indexes = channelPage(world, channel, obj(obj(request.body).messages));
    if (typeof indexes === 'string') return bad(indexes);
    return ok({
      channel: renderChannel(channel, world),
      messages: indexes.map((i) => message(channel, i)),
      members: [],
      read: [],
    });
  }
  const replies = /^\/messages\/([^/]+)\/replies$/.exec(path);
  if (request.method === 'GET' && replies) {
    const parentId = decodeURIComponent(replies[1]);
    const thread = state.threads.repliesOf(parentId);
    if (thread === undefined) return ok({ messages: [] });
    const channel = world.channel(thread.channelId)!;
    const after = request.url.searchParams.get('id_gt');
    const from = after === null ? 0 : thread.indexes.findIndex((i) => world.messageAt(channel.id, i).id === after) + 1;
    const limit = capped(Number(request.url.searchParams.get('limit')), 300, 100);
    const wanted = thread.indexes.slice(from);
    // Unsorted (or newest first), Stream answers the latest replies of those asked, oldest first.
    const page = oldestFirst(request.url.searchParams.get('sort'))
      ? wanted.slice(0, limit)
      : wanted.slice(Math.max(0, wanted.length - limit));
    return ok({ messages: page.map((i) => message(channel, i)) });
  }
  const channelType = /^\/channeltypes\/([^/]+)$/.exec(path);
  if (request.method === 'PUT' && channelType) {
    const name = decodeURIComponent(channelType[1]);
    const search = obj(request.body).search;
    if (typeof search === 'boolean') unsearchable(world)[search ? 'delete' : 'add'](name);
    return ok({ name, search: !unsearchable(world).has(name) });
  }
  if (request.method === 'GET' && path === '/search') {
    const p = payloadOf(request);
    const channel = p && state.byCid.get(String(obj(p.filter_conditions).cid));
    if (channel === undefined) return ok({ results: [] });
    if (unsearchable(world).has(channelIdentity(channel).type))
      return bad('Search failed with error: "There are no searchable channels"');
    const since = timeOf(obj(obj(p?.message_filter_conditions).created_at).$gte) ?? 0;
    const start =
      typeof p?.next === 'string'
        ? Number(Buffer.from(p.next, 'base64url').toString())
        : world.indexAtOrAfter(channel.id, since);
    const end = Math.min(world.messageCount(channel.id), start + capped(p?.limit, 100, 10));
    const results: Json[] = [];
    for (let i = start; i < end; i++) results.push({ message: message(channel, i) });
    const more = end < world.messageCount(channel.id);
    return ok(more ? { results, next: Buffer.from(String(end)).toString('base64url') } : { results });
  }
  const one = /^\/messages\/([^/]+)$/.exec(path);
  if (request.method === 'GET' && one) {
    const id = decodeURIComponent(one[1]);
    for (const channel of world.channels) {
      const i = world.indexOfId(channel.id, id);
      // Get Message answers the message with its channel (MessageWithChannelResponse).
      if (i >= 0) return ok({ message: { ...message(channel, i), channel: renderChannel(channel, world) } });
    }
    return streamErrorNotFound(id);
  }
  return undefined;
}

/** Whether a replies `sort` parameter asks `created_at` ascending: `[{"field":"created_at","direction":1}]`. */
function oldestFirst(sort: string | null): boolean {
  try {
    const first = obj((JSON.parse(sort ?? '[]') as unknown[])[0]);
    return first.field === 'created_at' && first.direction === 1;
  } catch {
    return false;
  }
}

function streamErrorNotFound(id: string): FakeReply {
  return streamError(404, 4, `GetMessage failed with error: "message ${id} not found"`);
}

/** The indexes of one channel-query page: top-level messages (and replies shown in the channel), oldest first. */
function channelPage(world: FakeWorld, channel: FakeChannel, q: Json): number[] | string {
  const limit = capped(q.limit, 300, 25);
  const count = world.messageCount(channel.id);
  const topLevel = (i: number) => world.messageAt(channel.id, i).parentId === undefined;
  const forward = (from: number) => {
    const out: number[] = [];
    for (let i = from; i < count && out.length < limit; i++) if (topLevel(i)) out.push(i);
    return out;
  };
  const backward = (before: number) => {
    const out: number[] = [];
    for (let i = before - 1; i >= 0 && out.length < limit; i--) if (topLevel(i)) out.unshift(i);
    return out;
  };
  const idOf = (v: unknown) => (typeof v === 'string' ? world.indexOfId(channel.id, v) : -2);
  if (q.id_gt !== undefined) {
    const at = idOf(q.id_gt);
    return at < 0 ? `message ${String(q.id_gt)} not found in ${channelIdentity(channel).cid}` : forward(at + 1);
  }
  if (q.id_lt !== undefined) {
    const at = idOf(q.id_lt);
    return at < 0 ? `message ${String(q.id_lt)} not found in ${channelIdentity(channel).cid}` : backward(at);
  }
  const after = timeOf(q.created_at_after_or_equal);
  if (after !== undefined) return forward(world.indexAtOrAfter(channel.id, after));
  return backward(count);
}

/** The CDN: a link with a valid signature, not yet expired, serves the bytes; else CloudFront's 403. */
function cdn(request: FakeRequest, world: FakeWorld, secret: string, nowMs: number): FakeReply {
  const [id] = request.url.pathname.slice(CDN_PATH.length).split('/').map(decodeURIComponent);
  const expires = Number(request.url.searchParams.get('Expires'));
  const given = Buffer.from(request.url.searchParams.get('Signature') ?? '');
  const expected = Buffer.from(linkSignature(secret, id ?? '', expires));
  const denied = (why: string): FakeReply => ({
    status: 403,
    headers: { 'content-type': 'text/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${why}</Message></Error>`,
  });
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return denied('Access denied');
  if (!Number.isFinite(expires) || expires * 1000 < nowMs) return denied('Request has expired');
  const media = world.media(id ?? '');
  if (media === undefined) return denied('Access denied');
  return { status: 200, headers: { 'content-type': media.contentType }, body: media.bytes };
}
