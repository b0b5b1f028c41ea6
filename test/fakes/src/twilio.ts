/**
 * The fake of Twilio Conversations v1 (a test double): one Conversation Service
 * with the world's users, conversations, participants and messages at Twilio's paths (also the default
 * service's `/v1/Conversations` and `/v1/Users`), its paging, HTTP Basic auth (API key and secret, or the
 * account SID and auth token), its 429 (error 20429), and the Media Content Service on the same origin:
 * the Media resource and its `/Content`, which redirects to a temporary link that expires.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { listBody, pageQuery, twilioError, type PageQuery } from './twilio-paging.js';
import {
  ACCOUNT_SID,
  conversationShape,
  mediaResourceShape,
  messageShape,
  participantShape,
  SERVICE_SID,
  serviceShape,
  sidOf,
  userShape,
} from './twilio-shapes.js';
import type { FakeChannel, FakeContext, FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

const API_KEY = sidOf('SK', 'chat-migrate-fake-key');
const API_SECRET = 'fake_twilio_secret_7c2e9a41d05b';
const AUTH_TOKEN = 'fake_twilio_token_3b8f60e2a9d4';
/** Twilio's temporary media links last minutes, as the fake's do unless the test sets `linkTtlMs`. */
export const TEMPORARY_LINK_MS = 300_000;
const TEMPORARY_PATH = '/media-temporary/';

type Place = { channelId: string; index: number; n: number };
/** What one fake keeps: its signing key, and where each media SID it has shown lives (SIDs are hashes). */
const stateOf = (world: FakeWorld) =>
  world.memo('twilio:state', () => ({
    signingKey: randomBytes(32),
    mediaPlaces: new Map<string, Place>(),
    bySid: new Map<string, FakeChannel>(),
  }));

function channelOf(world: FakeWorld, sid: string): FakeChannel | undefined {
  const state = stateOf(world);
  if (state.bySid.size !== world.channels.length)
    state.bySid = new Map(world.channels.map((c) => [sidOf('CH', c.id), c]));
  return state.bySid.get(sid);
}

/** The origin the client asked (the server fills `url` from its Host header): next links stay on it. */
const originOf = (request: FakeRequest): string => request.url.origin;

function basicOf(request: FakeRequest): [string, string] | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Basic ')) return undefined;
  const text = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : [text.slice(0, colon), text.slice(colon + 1)];
}

const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

function signature(world: FakeWorld, mediaSid: string, expires: number): string {
  return createHmac('sha256', stateOf(world).signingKey).update(`${mediaSid}:${expires}`).digest('hex');
}

function temporaryUrl(request: FakeRequest, ctx: FakeContext, mediaSid: string): string {
  const expires = Math.ceil((ctx.now() + (ctx.linkTtlMs ?? TEMPORARY_LINK_MS)) / 1000);
  const signed = `Expires=${expires}&Signature=${signature(ctx.world, mediaSid, expires)}`;
  return `${originOf(request)}${TEMPORARY_PATH}${mediaSid}?${signed}`;
}

/** One page of `count` items from `at` (asc) or down from `at` (desc, exclusive), as indices. */
function window(query: PageQuery, count: number, desc: boolean): { indices: number[]; nextAt?: number } {
  if (!desc) {
    const from = Math.min(query.token?.at ?? 0, count);
    const to = Math.min(from + query.size, count);
    return { indices: range(from, to), nextAt: to < count ? to : undefined };
  }
  const top = Math.min(query.token?.at ?? count, count);
  const low = Math.max(0, top - query.size);
  return { indices: range(low, top).reverse(), nextAt: low > 0 ? low : undefined };
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

function list(request: FakeRequest, key: string, max: number, count: number, item: (i: number) => unknown): FakeReply {
  const query = pageQuery(request.url, max);
  if ('status' in query) return query;
  const desc = request.url.searchParams.get('Order') === 'desc';
  const { indices, nextAt } = window(query, count, desc);
  return { status: 200, body: listBody(originOf(request), request.url, key, indices.map(item), query, nextAt) };
}

function routeList(request: FakeRequest, world: FakeWorld, rest: string): FakeReply | undefined {
  const origin = originOf(request);
  if (rest === 'Users') return list(request, 'users', 50, world.users.length, (i) => userShape(origin, world.users[i]));
  if (rest === 'Conversations')
    return list(request, 'conversations', 100, world.channels.length, (i) =>
      conversationShape(origin, world.channels[i]),
    );
  const m = /^Conversations\/([^/]+)\/(Participants|Messages)$/.exec(rest);
  if (m === null) return undefined;
  const channel = channelOf(world, decodeURIComponent(m[1]));
  if (channel === undefined)
    return twilioError(404, 20404, `The requested resource ${request.url.pathname} was not found`);
  if (m[2] === 'Participants')
    return list(request, 'participants', 100, channel.members.length, (i) =>
      participantShape(origin, channel, channel.members[i]),
    );
  const order = request.url.searchParams.get('Order');
  if (order !== null && order !== 'asc' && order !== 'desc') return twilioError(400, 20001, 'Invalid Order');
  return list(request, 'messages', 100, world.messageCount(channel.id), (i) => {
    const message = world.messageAt(channel.id, i);
    for (const [n, a] of message.attachments.entries())
      stateOf(world).mediaPlaces.set(sidOf('ME', a.id), { channelId: channel.id, index: i, n });
    return messageShape(origin, message, i, message.parentId && sidOf('IM', message.parentId));
  });
}

function routeMedia(request: FakeRequest, ctx: FakeContext, mediaSid: string, content: boolean): FakeReply {
  const { world } = ctx;
  const place = stateOf(world).mediaPlaces.get(mediaSid);
  if (place === undefined) return twilioError(404, 20404, `Media ${mediaSid} was not found`);
  const message = world.messageAt(place.channelId, place.index);
  const attachment = message.attachments[place.n];
  const temporary = temporaryUrl(request, ctx, mediaSid);
  if (content) return { status: 302, headers: { location: temporary }, body: '' };
  return { status: 200, body: mediaResourceShape(originOf(request), attachment, message, temporary) };
}

function routeTemporary(request: FakeRequest, { world, now }: FakeContext): FakeReply {
  const mediaSid = request.url.pathname.slice(TEMPORARY_PATH.length);
  const expires = Number(request.url.searchParams.get('Expires'));
  const given = request.url.searchParams.get('Signature') ?? '';
  const place = stateOf(world).mediaPlaces.get(mediaSid);
  if (!same(given, signature(world, mediaSid, expires)) || place === undefined)
    return { status: 403, body: 'AccessDenied: the signature does not match' };
  if (expires * 1000 < now()) return { status: 403, body: 'AccessDenied: Request has expired' };
  const attachment = world.messageAt(place.channelId, place.index).attachments[place.n];
  const media = world.media(attachment.id);
  if (media === undefined) return { status: 404, body: 'NoSuchKey' };
  return { status: 200, headers: { 'content-type': media.contentType }, body: media.bytes };
}

export const fake: FakeSource = {
  name: 'twilio',
  idStyle: 'twilio',
  credentials({ origin }) {
    return {
      TWILIO_ACCOUNT_SID: ACCOUNT_SID,
      TWILIO_API_KEY: API_KEY,
      TWILIO_API_SECRET: API_SECRET,
      TWILIO_MEDIA_BASE_URL: origin,
    };
  },
  authorized(request) {
    // The temporary media link is signed instead, as Twilio's are: it carries no credentials.
    if (request.url.pathname.startsWith(TEMPORARY_PATH)) return true;
    const basic = basicOf(request);
    if (basic === undefined) return false;
    const [user, password] = basic;
    return (
      (same(user, API_KEY) && same(password, API_SECRET)) || (same(user, ACCOUNT_SID) && same(password, AUTH_TOKEN))
    );
  },
  unauthorized: () => ({
    ...twilioError(401, 20003, 'Authenticate'),
    headers: { 'WWW-Authenticate': 'Basic realm="Twilio API"' },
  }),
  rateLimited: (retryAfterMs) => ({
    ...twilioError(429, 20429, 'Too Many Requests'),
    headers: { 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) },
  }),
  route(request, ctx) {
    if (request.method !== 'GET') return undefined;
    const { world } = ctx;
    const path = request.url.pathname;
    if (path.startsWith(TEMPORARY_PATH)) return routeTemporary(request, ctx);
    if (path === '/v1/Services') {
      const page = pageQuery(request.url, 100);
      if ('status' in page) return page;
      const created = Math.min(...world.channels.map((c) => c.createdAtMs), ctx.now());
      return {
        status: 200,
        body: listBody(
          originOf(request),
          request.url,
          'services',
          [serviceShape(originOf(request), created)],
          page,
          undefined,
        ),
      };
    }
    const media = /^\/v1\/Services\/([^/]+)\/Media\/([^/]+?)(\/Content)?$/.exec(path);
    if (media !== null) {
      if (media[1] !== SERVICE_SID) return twilioError(404, 20404, `Service ${media[1]} was not found`);
      return routeMedia(request, ctx, decodeURIComponent(media[2]), media[3] !== undefined);
    }
    const scoped = /^\/v1\/(?:Services\/([^/]+)\/)?(.+)$/.exec(path);
    if (scoped === null) return undefined;
    if (scoped[1] !== undefined && decodeURIComponent(scoped[1]) !== SERVICE_SID)
      return twilioError(404, 20404, `Service ${scoped[1]} was not found`);
    return routeList(request, world, scoped[2]);
  },
};
