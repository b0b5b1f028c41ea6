/**
 * Discord's per-route rate limits (https://discord.com/developers/docs/topics/rate-limits): every
 * answer names its bucket (`X-RateLimit-Bucket`) with what is left (`-Remaining`) and when it refills
 * (`-Reset-After`, seconds); a bucket counts per top-level resource (a channel, a guild), so two
 * channels' message pages never share one. The run's one limiter keeps the global pace; this gate
 * holds a request whose bucket is spent until it refills, so the pull meets few 429s at all. It reads
 * the headers and hands the limiter only Retry-After, since Discord's limit counts a bucket's seconds,
 * not the minute the limiter keeps.
 */
import type { IncomingHttpHeaders } from 'node:http';

interface Bucket {
  remaining: number;
  resetAtMs: number;
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const num = (v: string | string[] | undefined): number | undefined => {
  const n = Number(one(v));
  return one(v) === undefined || !Number.isFinite(n) ? undefined : n;
};

export class BucketGate {
  /** Route (method and path with ids as `:id`) -> the bucket Discord named for it. */
  private readonly bucketOf = new Map<string, string>();
  /** Bucket and top-level resource -> its state. */
  private readonly buckets = new Map<string, Bucket>();
  private globalUntilMs = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** How long a request on this route and resource must wait (ms); 0 when its bucket has room. */
  waitMs(route: string, major: string): number {
    const now = this.now();
    const name = this.bucketOf.get(route);
    const bucket = name === undefined ? undefined : this.buckets.get(`${name}:${major}`);
    const own = bucket !== undefined && bucket.remaining <= 0 ? bucket.resetAtMs - now : 0;
    return Math.max(0, own, this.globalUntilMs - now);
  }

  /** Takes a slot before sending, so requests in flight together do not overdraw a bucket. */
  take(route: string, major: string): void {
    const name = this.bucketOf.get(route);
    const bucket = name === undefined ? undefined : this.buckets.get(`${name}:${major}`);
    if (bucket !== undefined && bucket.resetAtMs > this.now()) bucket.remaining -= 1;
  }

  /** Learns from one answer's headers; returns the headers the run's limiter may read. */
  observe(route: string, major: string, headers: IncomingHttpHeaders): IncomingHttpHeaders {
    const name = one(headers['x-ratelimit-bucket']);
    const remaining = num(headers['x-ratelimit-remaining']);
    const resetAfter = num(headers['x-ratelimit-reset-after']);
    if (name !== undefined && remaining !== undefined && resetAfter !== undefined) {
      this.bucketOf.set(route, name);
      this.buckets.set(`${name}:${major}`, { remaining, resetAtMs: this.now() + resetAfter * 1000 });
    }
    const { 'x-ratelimit-limit': _l, 'x-ratelimit-remaining': _r, 'x-ratelimit-reset': _t, ...rest } = headers;
    return rest;
  }

  /** A 429's body: `{"retry_after": seconds, "global": true}` stops every route for that long. */
  limited(body: unknown): void {
    if (typeof body !== 'object' || body === null) return;
    const { retry_after: after, global } = body as { retry_after?: unknown; global?: unknown };
    if (global === true && typeof after === 'number' && Number.isFinite(after))
      this.globalUntilMs = Math.max(this.globalUntilMs, this.now() + after * 1000);
  }
}
