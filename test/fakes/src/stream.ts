/**
 * The fake of Stream Chat's server-side API (a test double): the routes
 * `pull stream` reads (Query Users, Query Channels, Query Members, the channel query's messages, a
 * thread's replies, Search, one message) with Stream's page limits, its server-token check (`api_key`
 * in the query, an HS256 JWT over `{"server": true}` in `Authorization`), its 429 with X-RateLimit-*
 * headers, and a CDN whose signed links expire (stream-render.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CDN_PATH, streamError } from './stream-render.js';
import { streamRoutes } from './stream-routes.js';
import type { FakeRequest, FakeSource } from './types.js';

const API_KEY = 'fakestreamkey7q2w';
const API_SECRET = 'fake-stream-secret-5d1c9e8a7b6f4e3d2c1b0a99';

const header = (request: FakeRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Whether `token` is an HS256 JWT signed with the secret whose payload says `server: true`. */
function serverTokenValid(token: string | undefined): boolean {
  const parts = token?.split('.') ?? [];
  if (parts.length !== 3) return false;
  const expected = createHmac('sha256', API_SECRET).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  try {
    const head = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return head.alg === 'HS256' && payload.server === true;
  } catch {
    return false;
  }
}

export const fake: FakeSource = {
  name: 'stream',
  idStyle: 'slug',
  credentials: () => ({ STREAM_API_KEY: API_KEY, STREAM_API_SECRET: API_SECRET }),
  authorized(request) {
    // The CDN's links carry their own signature, checked where the bytes are served.
    if (request.url.pathname.startsWith(CDN_PATH)) return true;
    return (
      request.url.searchParams.get('api_key') === API_KEY &&
      header(request, 'stream-auth-type') === 'jwt' &&
      serverTokenValid(header(request, 'authorization'))
    );
  },
  unauthorized: () =>
    streamError(401, 5, 'JWTAuth error: signature is not valid. Make sure the token is created using the secret'),
  rateLimited(retryAfterMs, limitPerMinute, ctx) {
    const reply = streamError(429, 9, 'Too many requests, check response headers for more information.');
    reply.headers = {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil((ctx.now() + retryAfterMs) / 1000)),
    };
    // A spurious 429 of a fake with no budget has no limit to state.
    if (limitPerMinute > 0) reply.headers['x-ratelimit-limit'] = String(limitPerMinute);
    return reply;
  },
  rateHeaders: (remaining, limitPerMinute, resetAtMs) => ({
    'x-ratelimit-limit': String(limitPerMinute),
    'x-ratelimit-remaining': String(Math.max(0, remaining)),
    'x-ratelimit-reset': String(Math.ceil(resetAtMs / 1000)),
  }),
  route: (request, ctx) => streamRoutes(request, ctx, API_SECRET),
};
