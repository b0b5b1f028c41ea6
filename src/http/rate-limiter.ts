import { type Clock, systemClock } from '../clock.js';
import { parseRetryAfter } from './retry-policy.js';

/** What the service said about its rate on one response. */
export interface RateSignals {
  status: number;
  limit?: number;
  remaining?: number;
  /** Epoch ms when the window frees a slot (X-Rate-Limit-Reset). */
  resetAt?: number;
  /** ms to wait (Retry-After). */
  retryAfterMs?: number;
}

/**
 * Holds every request of the run to a rate, spacing request starts evenly: a client that starts one
 * request every 60000/R ms can never put more than R requests into any 60-second window, which is
 * what keeps a long run free of 429s. It adapts to the service: a lower `X-Rate-Limit` lowers the
 * ceiling, a 429 cuts the rate and pauses everyone until `Retry-After`, and quiet success raises the
 * rate back slowly. In 'auto' mode the ceiling is learnt from `X-Rate-Limit` alone.
 */
export class RateLimiter {
  /** Stay a hair under the ceiling: arrival jitter on the wire must not push a window over it. */
  private static readonly MARGIN = 0.99;
  private ceiling: number;
  private rate: number;
  private nextStartAt = 0;
  private pausedUntil = 0;
  private lastRaiseAt = 0;
  private seen429 = false;
  private readonly auto: boolean;

  constructor(
    requestsPerMinute: number | 'auto',
    private readonly clock: Clock = systemClock,
    /** Where 'auto' starts: the documented default. */
    autoStart = 60,
  ) {
    this.auto = requestsPerMinute === 'auto';
    this.ceiling = this.auto ? autoStart : (requestsPerMinute as number);
    this.rate = this.ceiling;
  }

  /** Requests a minute the limiter allows now. */
  get currentRate(): number {
    return this.rate;
  }

  /** Waits for this request's turn. Returns early (without a slot) only when the signal aborts. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const start = Math.max(now, this.nextStartAt, this.pausedUntil);
      if (start <= now) {
        // Keep to the schedule: a timer that fired late must not push every later start back too. A
        // start is never more than one interval after its slot (else the schedule restarts from now,
        // without a catch-up burst), so a window still holds at most 0.99 R + 1 starts.
        const interval = this.intervalMs();
        const base = now - this.nextStartAt < interval ? this.nextStartAt : now;
        this.nextStartAt = base + interval;
        return;
      }
      await this.clock.sleep(start - now, signal);
      if (signal?.aborted) return;
    }
  }

  /** Learns from one response's status and rate headers. */
  observe(signals: RateSignals): void {
    const now = this.clock.now();
    if (signals.limit !== undefined && signals.limit > 0) {
      if (this.auto) {
        if (signals.limit !== this.ceiling) {
          this.ceiling = signals.limit;
          // Until a 429 says otherwise, the service's own figure is the rate; after one, creep up to it.
          this.rate = this.seen429 ? Math.min(this.rate, this.ceiling) : this.ceiling;
          // The next start was scheduled at the old pace: bring it forward.
          this.nextStartAt = Math.min(this.nextStartAt, now + this.intervalMs());
        }
      } else if (signals.limit < this.ceiling) {
        this.ceiling = signals.limit;
        this.rate = Math.min(this.rate, this.ceiling);
      }
    }
    if (signals.status === 429) {
      this.seen429 = true;
      this.rate = Math.max(1, this.rate * 0.75);
      const wait = signals.retryAfterMs ?? (signals.resetAt !== undefined ? signals.resetAt - now : 1000);
      this.pausedUntil = Math.max(this.pausedUntil, now + Math.max(0, wait));
      this.lastRaiseAt = now;
      return;
    }
    if (signals.remaining === 0 && signals.resetAt !== undefined) {
      this.pausedUntil = Math.max(this.pausedUntil, signals.resetAt);
    }
    // Additive increase, at most once every two seconds: a 429 cost a whole Retry-After, so creep back.
    if (this.rate < this.ceiling && now - this.lastRaiseAt >= 2000) {
      this.rate = Math.min(this.ceiling, this.rate + Math.max(1, this.ceiling * 0.05));
      this.lastRaiseAt = now;
    }
  }

  private intervalMs(): number {
    return 60_000 / (this.rate * RateLimiter.MARGIN);
  }
}

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
