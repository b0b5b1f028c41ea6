import { errors as undiciErrors } from 'undici';
import { type EndpointOptions, openEndpoint, type ServiceEndpoint } from './service-endpoint.js';
import { parseRequestError } from './parse-results.js';
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
  headers: Record<string, string | string[] | undefined>;
  /** The service's error code, on an answer other than 200 that names one. */
  code?: string;
  /** The body as text: the caller knows which shape to read from it. */
  text: string;
  rate: RateSignals;
}

/**
 * A request that got no HTTP answer: timeout, reset, refused, no such host. Always worth a retry.
 * `message` says whom and why in words (`cannot reach api.example.com: no such host (ENOTFOUND)`);
 * `reason` is the short form a retry notice shows (`ENOTFOUND api.example.com`).
 */
export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
    /** The short form a retry notice shows (`ENOTFOUND api.example.com`). */
    readonly reason: string,
    /** The error's code and what TLS or a proxy said, for the retry policy; and where the request went. */
    readonly failure: TransportFailure = {},
    readonly route?: TransportRoute,
  ) {
    super(message);
  }
}

/** Words for the system and undici codes a person meets when the service cannot be reached. */
const CAUSES: Record<string, string> = {
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the name lookup failed for now',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CLOSED: 'the connection was closed',
};

/** The server's certificate or TLS setup was not accepted: a retry rarely helps, the words must say so. */
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO)/;

/**
 * A TransportError naming the host and the cause. Built from the error's code, address and port only:
 * undici errors can carry the request, whose headers hold the API key.
 */
export function transportErrorOf(err: unknown, host: string, route?: TransportRoute): TransportError {
  const failure = transportFailure(err);
  // Through a proxy, the proxy's refusal is what the user must read (named without its credentials).
  const viaProxy = route ? describeProxyFailure(failure, route) : undefined;
  if (viaProxy !== undefined) return new TransportError('network', viaProxy, failure.code ?? 'proxy', failure, route);
  // Node tries each address of a name (happy eyeballs) and may throw them all together.
  const first = (err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] : err) as {
    code?: string;
    message?: string;
    address?: string;
    port?: number;
  };
  const code = first.code ?? (err as { code?: string }).code;
  const where = first.address ? `${first.address}${first.port ? `:${first.port}` : ''}` : host;
  if (code === undefined) {
    const text = first.message ?? 'network error';
    return new TransportError('network', `cannot reach ${host}: ${text}`, `${text} (${host})`, failure, route);
  }
  const cause = CAUSES[code] ?? (TLS_CODE.test(code) ? 'the TLS certificate was not accepted' : code);
  const lost = code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED';
  const detail = first.address ? `${code} ${where}` : code;
  const message = `${lost ? 'lost the connection to' : 'cannot reach'} ${host}: ${cause} (${detail})`;
  return new TransportError('network', message, `${code} ${where}`, failure, route);
}

export type ImportClientOptions = EndpointOptions;

const num = (v: string | string[] | undefined): number | undefined => {
  const n = Number(Array.isArray(v) ? v[0] : v);
  return v === undefined || !Number.isFinite(n) ? undefined : n;
};

/** Both spellings of the rate headers: the vendor's newest page writes X-RateLimit-*, older ones X-Rate-Limit*. */
const rateHeader = (h: Record<string, string | string[] | undefined>, compact: string, dashed: string) =>
  num(h[compact]) ?? num(h[dashed]);

/** What an answer's status and rate headers say, for the limiter: imports and reads read them alike. */
export function rateSignalsOf(status: number, h: Record<string, string | string[] | undefined>): RateSignals {
  const reset = rateHeader(h, 'x-ratelimit-reset', 'x-rate-limit-reset');
  return {
    status,
    limit: rateHeader(h, 'x-ratelimit-limit', 'x-rate-limit'),
    remaining: rateHeader(h, 'x-ratelimit-remaining', 'x-rate-limit-remaining'),
    resetAt: reset === undefined ? undefined : reset * 1000,
    retryAfterMs: parseRetryAfter(h['retry-after'] as string | undefined, Date.now()),
  };
}

/**
 * One keep-alive dispatcher (dispatcher.ts: proxies, TLS) for every request of the run. Retries live a
 * level up, in the one try loop (retrying-request.ts) as the batch sender drives it: it knows a POST of
 * already-imported records is safe to repeat (undici's own retry skips POST).
 */
export class ImportClient {
  private readonly at: ServiceEndpoint;

  constructor(private readonly options: ImportClientOptions) {
    this.at = openEndpoint(options);
  }

  /** POSTs a serialised body to `data_import/<endpoint>`. Throws TransportError when no answer came. */
  async post(endpoint: string, body: Buffer, signal?: AbortSignal): Promise<ImportResponse> {
    try {
      // The pool's headersTimeout (until the answer's headers) and bodyTimeout (between its chunks)
      // end a stalled request: a per-request timeout signal cost more than the rest of the client's
      // work at thousands of requests a second.
      const res = await this.at.dispatcher.request({
        origin: this.at.origin,
        path: `${this.at.prefix}data_import/${endpoint}`,
        method: 'POST',
        headers: this.at.headers,
        body,
        signal,
      });
      const text = await res.body.text();
      const status = res.statusCode;
      const code = status === 200 ? undefined : parseRequestError(text)?.code;
      return { status, headers: res.headers, code, text, rate: rateSignalsOf(status, res.headers) };
    } catch (err) {
      const seconds = `${this.options.timeoutMs / 1000} s`;
      if (err instanceof undiciErrors.HeadersTimeoutError) {
        const message = `no answer from ${this.at.host} within ${seconds} (timeoutMs)`;
        throw new TransportError('timeout', message, `no answer in ${seconds}`);
      }
      if (err instanceof undiciErrors.BodyTimeoutError) {
        const message = `the answer from ${this.at.host} stalled for ${seconds} (timeoutMs)`;
        throw new TransportError('timeout', message, `answer stalled ${seconds}`);
      }
      if (signal?.aborted) throw err;
      throw transportErrorOf(err, this.at.host, this.at.route);
    }
  }

  /** Where the requests go, as errors name it. */
  get route(): TransportRoute {
    return this.at.route;
  }

  async close(): Promise<void> {
    await this.at.dispatcher.close();
  }

  /** Drops connections at once (second Ctrl+C). */
  async destroy(): Promise<void> {
    await this.at.dispatcher.destroy();
  }
}
