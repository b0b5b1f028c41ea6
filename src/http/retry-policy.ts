/** The one retry policy of the run: which failures are worth another try, and how long to wait. */

export interface RetryPolicy {
  /** Tries after the first, per request. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 8, baseDelayMs: 500, maxDelayMs: 30_000 };

/** 429, 5xx, timeouts and network errors may succeed later; 4xx other than 429 will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
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
