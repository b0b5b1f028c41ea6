/** The one retry policy of the run: which failures are worth another try, and how long to wait. */

/**
 * Which answers are worth another try, as data (as undici's RetryHandler keeps `statusCodes`): the
 * sender asks `classifyStatus` and `classifyTransport` and never tests a status or code itself. Network
 * errors and timeouts (TransportError) are tried again unless listed as fatal: a POST of a batch is safe
 * to repeat, since the service answers "already exists" for what it stored the first time.
 */
export interface RetryPolicy {
  /** Tries after the first, per request. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** "Later": wait (at least what Retry-After asks) and send the same request again. */
  rateLimitStatuses: readonly number[];
  /** Statuses from this one up are server failures, tried again, and split when one record is the cause. */
  serverErrorFrom: number;
  /** Other statuses handled as server failures (a request timeout). */
  serverErrorStatuses: readonly number[];
  /** The key is refused: no try can help, the run stops. */
  authStatuses: readonly number[];
  /** Server failures of one request in a row before it is split in halves. */
  splitAfter: number;
  /**
   * Transport failures no retry can mend (a certificate that is not trusted, expired or for another
   * host, a server that does not speak TLS): the run stops at once. Other transport codes are retried.
   */
  fatalTransportCodes: readonly string[];
  /** Answers of a proxy to CONNECT that stop the run (credentials wanted or refused, tunnel forbidden). */
  fatalProxyStatuses: readonly number[];
  /**
   * Name lookups that failed: the host does not exist (ENOTFOUND), or the resolver cannot say (EAI_AGAIN,
   * what a machine without one answers). A wrong appId or region is the usual cause: no try mends it.
   */
  unresolvedCodes: readonly string[];
  /** Downloads (media): answers that point elsewhere, followed by hand so each hop is checked. */
  redirectStatuses: readonly number[];
  /** Downloads: redirects followed per file before it counts as failed. */
  maxRedirects: number;
  /** Downloads: retries per file (a file is not a batch: a dead host should not hold the run long). */
  downloadRetries: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 8,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  rateLimitStatuses: [429],
  serverErrorFrom: 500,
  serverErrorStatuses: [408],
  authStatuses: [401, 403],
  splitAfter: 2,
  fatalTransportCodes: [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_UNTRUSTED',
    'CERT_REJECTED',
    'CERT_SIGNATURE_FAILURE',
    'CERT_REVOKED',
    'INVALID_CA',
    'INVALID_PURPOSE',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_HAS_EXPIRED',
    'CERT_NOT_YET_VALID',
    'ERR_SSL_WRONG_VERSION_NUMBER',
  ],
  fatalProxyStatuses: [403, 407],
  unresolvedCodes: ['ENOTFOUND', 'EAI_AGAIN'],
  redirectStatuses: [301, 302, 303, 307, 308],
  maxRedirects: 5,
  downloadRetries: 3,
};

/**
 * What an answer that is not 200 means: `rate-limited` and `server-error` may pass on another try;
 * `auth` stops the run; `refused` is about the records sent (a 4xx), so trying the same again cannot help.
 */
export type FailedAnswer = 'rate-limited' | 'server-error' | 'auth' | 'refused';

export function classifyStatus(policy: RetryPolicy, status: number): FailedAnswer {
  if (policy.authStatuses.includes(status)) return 'auth';
  if (policy.rateLimitStatuses.includes(status)) return 'rate-limited';
  if (status >= policy.serverErrorFrom || policy.serverErrorStatuses.includes(status)) return 'server-error';
  return 'refused';
}

/**
 * What a request that got no answer at all means: `fatal` stops the run, `unresolved` too (the host's
 * name does not resolve), `retry` tries again.
 */
export function classifyTransport(
  policy: RetryPolicy,
  failure: { code?: string; proxyStatus?: number },
): 'fatal' | 'unresolved' | 'retry' {
  if (failure.code !== undefined && policy.fatalTransportCodes.includes(failure.code)) return 'fatal';
  if (failure.code !== undefined && policy.unresolvedCodes.includes(failure.code)) return 'unresolved';
  if (failure.proxyStatus !== undefined && policy.fatalProxyStatuses.includes(failure.proxyStatus)) return 'fatal';
  return 'retry';
}

/** Exponential backoff with full jitter (AWS architecture blog), never shorter than the server asked. */
export function backoffDelay(policy: RetryPolicy, attempt: number, serverAskedMs = 0, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.max(serverAskedMs, Math.floor(random() * ceiling));
}

/** `Retry-After` is seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
