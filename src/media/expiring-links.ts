/**
 * Attachment links that expire and that their system signs again on request. A pull marks each such
 * link with where it came from (in the URL's fragment, which no client sends), and the media pass asks
 * the system for a fresh link once the marked one has expired. A system that has them gives one
 * `ExpiringLinks` (Stream's: src/systems/stream/link-refresh.ts); the carrier is handed them all.
 */
import type { ProxySettings } from '../http/proxy-env.js';
import type { Clock } from '../clock.js';
import type { RetryPolicy } from '../http/retry-policy.js';

/** A signed link whose `Expires` (Unix seconds, CloudFront's and Stream's) is already past. */
export function linkExpired(url: string, nowMs: number): boolean {
  try {
    const expires = Number(new URL(url).searchParams.get('Expires') ?? Number.NaN);
    return Number.isFinite(expires) && expires * 1000 <= nowMs;
  } catch {
    return false;
  }
}

export interface RefresherOptions {
  env: Readonly<Record<string, string | undefined>>;
  policy: RetryPolicy;
  clock: Clock;
  proxy: ProxySettings;
  timeoutMs: number;
  signal: AbortSignal;
}

/** A fresh link, or why there is none (said in the attachment's "not carried" reason). */
export type Refreshed = { url: string } | { reason: string };

export interface LinkRefresher {
  /** Asks the system again for a link it marked. */
  refresh(url: string): Promise<Refreshed>;
  close(): Promise<void>;
}

export interface ExpiringLinks {
  /** The system, in messages: `Stream`. */
  system: string;
  /** Whether its pull marked this link. */
  marks(url: string): boolean;
  /** Made when the first expired link is met: most imports have none. */
  refresher(options: RefresherOptions): LinkRefresher;
}
