import { Pool, errors as undiciErrors } from 'undici';
import { parseRetryAfter } from './retry-policy.js';
import type { RateSignals } from './rate-limiter.js';

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
  ) {
    super(message);
  }
}

export interface ImportClientOptions {
  baseUrl: string;
  apiKey: string;
  connections: number;
  timeoutMs: number;
}

const num = (v: string | string[] | undefined): number | undefined => {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return v === undefined || !Number.isFinite(n) ? undefined : n;
};

/**
 * One keep-alive pool for every request of the run. Retries live a level up, in the batch sender,
 * which knows a POST of already-imported records is safe to repeat (undici's own retry skips POST).
 */
export class ImportClient {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: ImportClientOptions) {
    const url = new URL(options.baseUrl);
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.prefix = `${url.pathname.replace(/\/+$/, '')}/v3.0/data_import/`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json', apikey: options.apiKey };
  }

  /** POSTs a serialised body to `data_import/<endpoint>`. Throws TransportError when no answer came. */
  async post(endpoint: string, body: Buffer, signal?: AbortSignal): Promise<ImportResponse> {
    try {
      // The pool's headersTimeout (until the answer's headers) and bodyTimeout (between its chunks)
      // end a stalled request: a per-request timeout signal cost more than the rest of the client's
      // work at thousands of requests a second.
      const res = await this.pool.request({
        path: this.prefix + endpoint,
        method: 'POST',
        headers: this.headers,
        body,
        signal,
      });
      const text = await res.body.text();
      const h = res.headers;
      const reset = num(h['x-rate-limit-reset']);
      return {
        status: res.statusCode,
        text,
        rate: {
          status: res.statusCode,
          limit: num(h['x-rate-limit']),
          remaining: num(h['x-rate-limit-remaining']),
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
      throw new TransportError('network', e.code ?? e.message ?? 'network error');
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Drops connections at once (second Ctrl+C). */
  async destroy(): Promise<void> {
    await this.pool.destroy();
  }
}
