import { errors as undiciErrors, type Dispatcher } from 'undici';
import { createDispatcher } from './dispatcher.js';
import { proxyFor, readProxySettings, type ProxySettings } from './proxy-env.js';
import { parseRetryAfter } from './retry-policy.js';
import type { RateSignals } from './rate-limiter.js';
import {
  describeProxyFailure,
  transportFailure,
  type TransportFailure,
  type TransportRoute,
} from './transport-errors.js';

/** What one POST came back with. The client knows nothing of records: it moves bytes and reads headers. */
export interface ImportResponse {
  status: number;
  /** The body as text: the caller knows which shape to read from it. */
  text: string;
  rate: RateSignals;
}

/** A request that got no HTTP answer: timeout, reset, refused. Always worth a retry. */
export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
    /** The error's code and what TLS or a proxy said, for the retry policy; and where the request went. */
    readonly failure: TransportFailure = {},
    readonly route?: TransportRoute,
  ) {
    super(message);
  }
}

export interface ImportClientOptions {
  baseUrl: string;
  apiKey: string;
  connections: number;
  timeoutMs: number;
  /** The path segment before `data_import/`: `v3.0` as the spec writes it, or `v3`. */
  apiVersion: string;
  /** Default: read from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
}

const num = (v: string | string[] | undefined): number | undefined => {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return v === undefined || !Number.isFinite(n) ? undefined : n;
};

/** Both spellings of the rate headers: the vendor's newest page writes X-RateLimit-*, older ones X-Rate-Limit*. */
const rateHeader = (h: Record<string, string | string[] | undefined>, compact: string, dashed: string) =>
  num(h[compact]) ?? num(h[dashed]);

/**
 * One keep-alive dispatcher (dispatcher.ts: proxies, TLS) for every request of the run. Retries live a
 * level up, in the batch sender, which knows a POST of already-imported records is safe to repeat
 * (undici's own retry skips POST).
 */
export class ImportClient {
  private readonly dispatcher: Dispatcher;
  private readonly origin: string;
  private readonly route: TransportRoute;
  private readonly prefix: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: ImportClientOptions) {
    const url = new URL(options.baseUrl);
    const proxy = options.proxy ?? readProxySettings(process.env);
    this.dispatcher = createDispatcher({ connections: options.connections, timeoutMs: options.timeoutMs, proxy });
    this.origin = url.origin;
    this.route = { host: url.host, proxy: proxyFor(url, proxy) };
    this.prefix = `${url.pathname.replace(/\/+$/, '')}/${options.apiVersion}/data_import/`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json', apikey: options.apiKey };
  }

  /** POSTs a serialised body to `data_import/<endpoint>`. Throws TransportError when no answer came. */
  async post(endpoint: string, body: Buffer, signal?: AbortSignal): Promise<ImportResponse> {
    try {
      // The pool's headersTimeout (until the answer's headers) and bodyTimeout (between its chunks)
      // end a stalled request: a per-request timeout signal cost more than the rest of the client's
      // work at thousands of requests a second.
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: this.prefix + endpoint,
        method: 'POST',
        headers: this.headers,
        body,
        signal,
      });
      const text = await res.body.text();
      const h = res.headers;
      const reset = rateHeader(h, 'x-ratelimit-reset', 'x-rate-limit-reset');
      return {
        status: res.statusCode,
        text,
        rate: {
          status: res.statusCode,
          limit: rateHeader(h, 'x-ratelimit-limit', 'x-rate-limit'),
          remaining: rateHeader(h, 'x-ratelimit-remaining', 'x-rate-limit-remaining'),
          resetAt: reset === undefined ? undefined : reset * 1000,
          retryAfterMs: parseRetryAfter(h['retry-after'] as string | undefined, Date.now()),
        },
      };
    } catch (err) {
      if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
        throw new TransportError('timeout', `no answer within ${this.options.timeoutMs} ms`);
      }
      if (signal?.aborted) throw err;
      // Only the error's code/message: undici errors can carry the request, whose headers hold the key.
      const e = err as { code?: string; message?: string };
      const failure = transportFailure(err);
      const message = describeProxyFailure(failure, this.route) ?? e.code ?? e.message ?? 'network error';
      throw new TransportError('network', message, failure, this.route);
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /** Drops connections at once (second Ctrl+C). */
  async destroy(): Promise<void> {
    await this.dispatcher.destroy();
  }
}
