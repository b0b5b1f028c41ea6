/**
 * The fake of Twilio Conversations v1 (`chat-migrate sandbox --source twilio`): one Conversation Service
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
import type { FakeChannel, FakeReply, FakeRequest, FakeSource, FakeWorld } from './types.js';

const API_KEY = sidOf('SK', 'chat-migrate-fake-key');
const API_SECRET = 'fake_twilio_secret_7c2e9a41d05b';
const AUTH_TOKEN = 'fake_twilio_token_3b8f60e2a9d4';
/** Twilio's temporary media links last minutes; the fake's a few seconds, so tests can see one expire. */
export const TEMPORARY_LINK_MS = 5_000;
const TEMPORARY_PATH = '/media-temporary/';
const signingKey = randomBytes(32);

/** Where each media SID the fake has shown lives: media SIDs are hashes, not reversible. */
const mediaPlaces = new Map<string, { channelId: string; index: number; n: number }>();
const channelsBySid = new WeakMap<FakeWorld, Map<string, FakeChannel>>();

function channelOf(world: FakeWorld, sid: string): FakeChannel | undefined {
  let bySid = channelsBySid.get(world);
  if (bySid === undefined || bySid.size !== world.channels.length) {
    bySid = new Map(world.channels.map((c) => [sidOf('CH', c.id), c]));
    channelsBySid.set(world, bySid);
  }
  return bySid.get(sid);
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

function signature(mediaSid: string, expires: number): string {
  return createHmac('sha256', signingKey).update(`${mediaSid}:${expires}`).digest('hex');
}

function temporaryUrl(origin: string, mediaSid: string, nowMs: number): string {
  const expires = Math.ceil((nowMs + TEMPORARY_LINK_MS) / 1000);
  return `${origin}${TEMPORARY_PATH}${mediaSid}?Expires=${expires}&Signature=${signature(mediaSid, expires)}`;
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
      mediaPlaces.set(sidOf('ME', a.id), { channelId: channel.id, index: i, n });
    return messageShape(origin, message, i, message.parentId && sidOf('IM', message.parentId));
  });
}

function routeMedia(request: FakeRequest, world: FakeWorld, mediaSid: string, content: boolean): FakeReply {
  const place = mediaPlaces.get(mediaSid);
  if (place === undefined) return twilioError(404, 20404, `Media ${mediaSid} was not found`);
  const message = world.messageAt(place.channelId, place.index);
  const attachment = message.attachments[place.n];
  const temporary = temporaryUrl(originOf(request), mediaSid, Date.now());
  if (content) return { status: 302, headers: { location: temporary }, body: '' };
  return { status: 200, body: mediaResourceShape(originOf(request), attachment, message, temporary) };
}

function routeTemporary(request: FakeRequest, world: FakeWorld): FakeReply {
  const mediaSid = request.url.pathname.slice(TEMPORARY_PATH.length);
  const expires = Number(request.url.searchParams.get('Expires'));
  const given = request.url.searchParams.get('Signature') ?? '';
  const place = mediaPlaces.get(mediaSid);
  if (!same(given, signature(mediaSid, expires)) || place === undefined)
    return { status: 403, body: 'AccessDenied: the signature does not match' };
  if (expires * 1000 < Date.now()) return { status: 403, body: 'AccessDenied: Request has expired' };
  const attachment = world.messageAt(place.channelId, place.index).attachments[place.n];
  const media = world.media(attachment.id);
  if (media === undefined) return { status: 404, body: 'NoSuchKey' };
  return { status: 200, headers: { 'content-type': media.contentType }, body: media.bytes };
}

export const fake: FakeSource = {
  name: 'twilio',
  idStyle: 'twilio',
  credentials(origin) {
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
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  }),
  route(request, world) {
    if (request.method !== 'GET') return undefined;
    const path = request.url.pathname;
    if (path.startsWith(TEMPORARY_PATH)) return routeTemporary(request, world);
    if (path === '/v1/Services') {
      const page = pageQuery(request.url, 100);
      if ('status' in page) return page;
      const created = Math.min(...world.channels.map((c) => c.createdAtMs), Date.now());
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
      return routeMedia(request, world, decodeURIComponent(media[2]), media[3] !== undefined);
    }
    const scoped = /^\/v1\/(?:Services\/([^/]+)\/)?(.+)$/.exec(path);
    if (scoped === null) return undefined;
    if (scoped[1] !== undefined && decodeURIComponent(scoped[1]) !== SERVICE_SID)
      return twilioError(404, 20404, `Service ${scoped[1]} was not found`);
    return routeList(request, world, scoped[2]);
  },
};
