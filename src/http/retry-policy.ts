/** The one retry policy of the run: which failures are worth another try, and how long to wait. */

/**
 * Which answers are worth another try, as data (as undici's RetryHandler keeps `statusCodes`): the
 * sender asks `classifyStatus` and never tests a status itself. Network errors and timeouts
 * (TransportError) are always tried again: a POST of a batch is safe to repeat, since the service
 * answers "already exists" for what it stored the first time.
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
