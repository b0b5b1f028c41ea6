/**
 * The client of a live source's API (Sendbird, Stream, Twilio, Slack, Discord) for `pull`: one
 * dispatcher, the source's own limiter, and the one try loop (retrying-request.ts), so a source's 429s,
 * 5xx and dropped connections are met as the import meets the service's. The credentials' headers go
 * to the base URL's origin only: a next-page link to another origin is refused, never followed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SourceError } from '../errors.js';
import { createDispatcher, proxyFor } from './dispatcher.js';
import { readProxySettings, type ProxySettings } from './proxy-env.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from './rate-limiter.js';
import type { RetryPolicy } from './retry-policy.js';
import { type Answer, type RequestEvents, retryingRequest, type TryLoop, type Verdict } from './retrying-request.js';
import { userAgentFor } from './user-agent.js';

/** One answer of the source, its body parsed when it is JSON. */
export interface SourceAnswer extends Answer {
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  body: unknown;
}

export interface SourceRequest {
  method?: 'GET' | 'POST';
  /** A path under the base URL (`/v3/users`), or an absolute URL on the base URL's origin (a next link). */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (POST), or a form (`application/x-www-form-urlencoded`, Slack's Web API). */
  json?: unknown;
  form?: Record<string, string>;
  /** Names the request in errors: `GET /v3/users`; default method and path. */
  subject?: string;
  /**
   * The source's reading of an answer before the usual one (2xx done, 401/403 the credentials, 429 and
   * 5xx tried again): Slack's `{"ok": false, "error": "ratelimited"}`, a 404 that means "none".
   */
  judge?: (answer: SourceAnswer) => Verdict<SourceAnswer> | undefined;
  /**
   * The source's reading of an answer's headers before the run's limiter sees them: Discord's
   * `X-RateLimit-Limit` counts one route's window of seconds, not the minute the limiter keeps, so its
   * source tracks those buckets itself and hands the limiter only what fits (Retry-After). `nowMs` is
   * the run's clock, for a source whose reset is a time left rather than a point in time.
   */
  rateHeaders?: (headers: IncomingHttpHeaders, nowMs: number) => IncomingHttpHeaders;
}

/** What the pull's sources call: a GET or POST, its whole answer read. */
export interface SourceHttp {
  readonly baseUrl: string;
  request(request: SourceRequest): Promise<SourceAnswer>;
  /** Shorthand: a GET whose 2xx body is returned. */
  get(path: string, query?: SourceRequest['query']): Promise<unknown>;
}

export interface SourceClientOptions {
  /** The source's name, for messages: `sendbird`. */
  source: string;
  baseUrl: string;
  headers: Record<string, string>;
  /** What to check when the credentials are refused: names the environment variables. */
  authHint: string;
  connections: number;
  timeoutMs: number;
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  stop: AbortSignal;
  events?: RequestEvents;
  proxy?: ProxySettings;
}

export class SourceClient implements SourceHttp {
  readonly baseUrl: string;
  private readonly base: URL;
  private readonly loop: TryLoop;
  private readonly dispatcher;
  private readonly closing = new AbortController();

  constructor(private readonly options: SourceClientOptions) {
    this.base = new URL(options.baseUrl);
    this.baseUrl = this.base.href.replace(/\/+$/, '');
    const proxy = options.proxy ?? readProxySettings(process.env);
    this.dispatcher = createDispatcher({ connections: options.connections, timeoutMs: options.timeoutMs, proxy });
    const { limiter, policy, clock, stop, events } = options;
    this.loop = { limiter, policy, clock, stop, events, abandon: this.closing.signal, saved: 'the pull is saved' };
    this.route = { host: this.base.host, proxy: proxyFor(this.base, proxy) };
  }

  private readonly route;

  async get(path: string, query?: SourceRequest['query']): Promise<unknown> {
    return (await this.request({ path, query })).body;
  }

  request(request: SourceRequest): Promise<SourceAnswer> {
    const method = request.method ?? 'GET';
    const url = this.urlOf(request.path, request.query);
    const subject = request.subject ?? `${method} ${url.pathname}`;
    const { source, authHint, timeoutMs } = this.options;
    // Every source's every request names the tool (user-agent.ts); the source's own headers come after.
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': userAgentFor(source),
      ...this.options.headers,
    };
    let body: string | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    }
    return retryingRequest(this.loop, {
      subject: `${source}: ${subject}`,
      route: this.route,
      timeoutMs,
      unresolvedHint: `check the ${source} base URL (--base-url)`,
      send: async (signal) => {
        const res = await this.dispatcher.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method,
          headers,
          body,
          signal,
        });
        const text = await res.body.text();
        const seen = request.rateHeaders ? request.rateHeaders(res.headers, this.loop.clock.now()) : res.headers;
        return { status: res.statusCode, headers: seen, text, body: parseJson(text) };
      },
      judge: (answer, kind) => {
        const own = request.judge?.(answer);
        if (own !== undefined) return own;
        if (kind === 'ok') return { done: answer };
        if (kind === 'auth') {
          throw new SourceError(
            'SOURCE_CREDENTIALS_REFUSED',
            `${source} refused the credentials (HTTP ${answer.status})`,
            {
              hint: authHint,
            },
          );
        }
        if (kind === 'refused') {
          const said = errorWords(answer.body);
          // A resource asked for by its id or link that is no longer there: not a request out of the rules.
          throw new SourceError(
            answer.status === 404 || answer.status === 410 ? 'SOURCE_GONE' : 'SOURCE_REFUSED',
            `${source}: ${subject}: HTTP ${answer.status}${said ? `: ${said}` : ''}`,
          );
        }
        return undefined;
      },
    });
  }

  /** The URL of a path or next link; the credentials never leave the base URL's origin. */
  private urlOf(pathOrUrl: string, query: SourceRequest['query'] = {}): URL {
    const absolute = /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl);
    const url = absolute
      ? new URL(pathOrUrl)
      : new URL(`${this.base.pathname.replace(/\/+$/, '')}${pathOrUrl}`, this.base.origin);
    if (url.origin !== this.base.origin) {
      throw new SourceError(
        'SOURCE_OTHER_ORIGIN',
        `${this.options.source} gave a link to another origin (${url.origin}); the pull only follows ` +
          `links on ${this.base.origin}`,
        { hint: 'set --base-url to the origin the source answers from' },
      );
    }
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.dispatcher.close();
  }

  async destroy(): Promise<void> {
    this.closing.abort();
    await this.dispatcher.destroy();
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A short reason from an error body (`message`, `error`, `detail`), never the whole body. */
function errorWords(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const said = [b.message, b.error, b.detail].find((v) => typeof v === 'string') as string | undefined;
  return said?.slice(0, 200);
}
