/** The rate state one response reports. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Epoch seconds when the oldest accepted request leaves the window (a slot frees). */
  resetAt: number;
  /** Whole seconds to wait before a retry can be accepted; at least 1. */
  retryAfter: number;
  /** The same wait in milliseconds (at least 1), for sources that say it finer (Discord, Sendbird). */
  retryAfterMs: number;
}

const WINDOW_MS = 60_000;

/**
 * Sliding 60-second window of accepted requests, like the hosted service's per-minute limit.
 * Timestamps sit in an array read from `head`, so expiring old ones costs no shifting.
 */
export class RateWindow {
  private stamps: number[] = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  get enabled(): boolean {
    return this.limit > 0;
  }

  /** Counts the request when a slot is free; `accepted` false means answer 429. */
  tryAcquire(now: number): { accepted: boolean; state: RateState } {
    this.expire(now);
    const accepted = this.size() < this.limit;
    if (accepted) this.stamps.push(now);
    return { accepted, state: this.peek(now) };
  }

  /**
   * Gives back the slot of the request just accepted. Used for spurious 429s: the contract says
   * rate-limited requests do not count, and the client cannot tell a spurious one apart.
   */
  releaseLast(): void {
    if (this.size() > 0) this.stamps.pop();
  }

  peek(now: number): RateState {
    this.expire(now);
    const size = this.size();
    const oldest = size > 0 ? this.stamps[this.head] : now;
    const frees = size > 0 ? oldest + WINDOW_MS : now;
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - size),
      resetAt: Math.ceil(frees / 1000),
      retryAfter: Math.max(1, Math.ceil((frees - now) / 1000)),
      retryAfterMs: Math.max(1, frees - now),
    };
  }

  reset(): void {
    this.stamps = [];
    this.head = 0;
  }

  private size(): number {
    return this.stamps.length - this.head;
  }

  private expire(now: number): void {
    while (this.head < this.stamps.length && this.stamps[this.head] <= now - WINDOW_MS) this.head++;
    if (this.head > 1024 && this.head * 2 > this.stamps.length) {
      this.stamps = this.stamps.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The two spellings of the rate headers: `dashed` as the spec and older vendor pages write them,
 * `compact` as the vendor's newest page does. A client must read both.
 */
export type RateHeaderStyle = 'dashed' | 'compact';

const HEADER_NAMES: Record<RateHeaderStyle, { limit: string; remaining: string; reset: string }> = {
  dashed: { limit: 'X-Rate-Limit', remaining: 'X-Rate-Limit-Remaining', reset: 'X-Rate-Limit-Reset' },
  compact: { limit: 'X-RateLimit-Limit', remaining: 'X-RateLimit-Remaining', reset: 'X-RateLimit-Reset' },
};

/** The name of the header that says when the window frees a slot (epoch seconds). */
export const resetHeaderName = (style: RateHeaderStyle): string => HEADER_NAMES[style].reset;

/** The headers every import response carries while a limit is set. */
export function rateHeaders(state: RateState, style: RateHeaderStyle = 'dashed'): Record<string, string> {
  const names = HEADER_NAMES[style];
  return {
    [names.limit]: String(state.limit),
    [names.remaining]: String(state.remaining),
    [names.reset]: String(state.resetAt),
  };
}
