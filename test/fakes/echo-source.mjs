// A trivial FakeSource for the fake server's own tests: a bearer token, its own 401 and 429 shapes, a
// rate header, channels and messages paged by index, and an echo of what it was sent. Not a real
// source: each source's fake lives in test/fakes/src/<name>.ts.

export const ECHO_TOKEN = 'echo-token-5c1f9e0d7a3b';

/** @type {import('./dist/index.js').FakeSource} */
export const echoSource = {
  name: 'echo',
  idStyle: 'slug',
  credentials: () => ({ ECHO_TOKEN }),
  authorized: (request) => request.headers.authorization === `Bearer ${ECHO_TOKEN}`,
  unauthorized: () => ({ status: 401, body: { echo: 'invalid_auth' } }),
  rateLimited: (retryAfterMs, limit) => ({
    status: 429,
    headers: { 'Retry-After-Ms': String(retryAfterMs) },
    body: { echo: 'rate_limited', retryAfterMs, limit },
  }),
  rateHeaders: (remaining, limit, resetAtMs) => ({
    'X-Echo-Remaining': String(remaining),
    'X-Echo-Limit': String(limit),
    'X-Echo-Reset-Ms': String(resetAtMs),
  }),
  route(request, { world }) {
    const { pathname, searchParams } = request.url;
    if (request.method === 'POST' && pathname === '/echo') return { status: 200, body: { got: request.body } };
    if (pathname.endsWith('/whoami')) return { status: 200, body: { href: request.url.href } };
    if (pathname === '/channels') return { status: 200, body: world.channels.map((c) => c.id) };
    const match = /^\/channels\/([^/]+)\/messages$/.exec(pathname);
    if (!match || !world.channel(match[1])) return undefined;
    const count = world.messageCount(match[1]);
    const from = Number(searchParams.get('from') ?? 0);
    const limit = Number(searchParams.get('limit') ?? 100);
    const items = [];
    for (let i = from; i < Math.min(count, from + limit); i++) items.push(world.messageAt(match[1], i));
    return { status: 200, body: { items, next: from + limit < count ? from + limit : null } };
  },
};
