/**
 * validate's media check (issue 18): attachments on hosts whose links stop working with the old
 * system (login-only, signed or expiring URLs: media/host-rules.ts EXPIRING_HOSTS) that `media`
 * does not carry. One summary, counts per host, so a person sees the size of the problem at once.
 * Counted in validate's one reading of the messages (both threads), by host name, and judged
 * against `media.hosts` at the end: a second reading of the messages cost a third of validate's speed.
 */
import type { MediaConfig } from '../../config/media-schema.js';
import type { JsonObject } from '../../entities/types.js';
import { expiringHostOf, HostRules } from '../../media/host-rules.js';
import { isPlainObject } from '../map/object-paths.js';

export interface ExpiringMedia {
  total: number;
  /** Expiring-host entry (`files.slack.com`, `*.stream-io-cdn.com`) -> attachments on it. */
  byHost: Record<string, number>;
}

/** Host names kept apart at the most; more (an export of random subdomains) are counted under one entry. */
const MAX_HOSTS = 1000;
const OTHER = '(other hosts)';

/** Adds a mapped message's attachments on expiring hosts to `counts` (host name -> attachments). */
export function countExpiringHosts(payload: JsonObject, counts: Record<string, number>): void {
  const data = payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments)) return;
  for (const a of data.attachments) {
    if (!isPlainObject(a) || typeof a.url !== 'string') continue;
    const host = hostOf(a.url);
    if (host === undefined || expiringHostOf(host) === undefined) continue;
    const key = host in counts || Object.keys(counts).length < MAX_HOSTS ? host : OTHER;
    counts[key] = (counts[key] ?? 0) + 1;
  }
}

/** Adds one count to another (a worker block's to the run's). */
export function addHostCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [host, n] of Object.entries(from)) into[host] = (into[host] ?? 0) + n;
}

/** The summary of the counted hosts that `media.hosts` does not cover; undefined when there are none. */
export function expiringMediaOf(
  counts: Record<string, number>,
  media: MediaConfig | undefined,
): ExpiringMedia | undefined {
  const covered = media ? new HostRules(media.hosts) : undefined;
  const byHost: Record<string, number> = {};
  let total = 0;
  for (const [host, n] of Object.entries(counts)) {
    if (host !== OTHER && covered?.allows(host)) continue;
    const entry = host === OTHER ? OTHER : expiringHostOf(host)!;
    byHost[entry] = (byHost[entry] ?? 0) + n;
    total += n;
  }
  return total === 0 ? undefined : { total, byHost };
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
