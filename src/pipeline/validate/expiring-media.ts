/**
 * validate's media checks. Attachments are counted per URL host in validate's one reading of the
 * messages (both threads), and judged at the end: a second reading of the messages cost a third of
 * validate's speed.
 * - Expiring hosts: hosts whose links stop working with the old system (login-only, signed
 *   or expiring URLs: each system's `expiringHosts`) that `media` does not carry. One summary,
 *   counts per host, so a person sees the size of the problem at once.
 * - Unlisted hosts: with `media` set, attachments on hosts not on `media.hosts`, which keep
 *   their URL; a typo in `hosts` shows as a host with all the attachments (media/unlisted-hosts.ts).
 */
import type { MediaConfig } from '../../config/media-schema.js';
import type { JsonObject } from '../../entities/types.js';
import { expiringHostOf, HostRules } from '../../media/host-rules.js';
import type { ExportFolder } from '../../media/media-sources.js';
import { addHostCount, OTHER_HOSTS, type UnlistedHosts } from '../../media/unlisted-hosts.js';
import { expiringHosts } from '../../systems/index.js';
import { isPlainObject } from '../map/object-paths.js';

export interface ExpiringMedia {
  total: number;
  /** Expiring-host entry (`files.slack.com`, `*.stream-io-cdn.com`) -> attachments on it. */
  byHost: Record<string, number>;
}

/** Adds a mapped message's attachments with an http(s) URL to `counts` (host name -> attachments). */
export function countAttachmentHosts(payload: JsonObject, counts: Record<string, number>): void {
  const data = payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments)) return;
  for (const a of data.attachments) {
    if (!isPlainObject(a) || typeof a.url !== 'string') continue;
    const host = hostOf(a.url);
    if (host !== undefined) addHostCount(counts, host);
  }
}

/** Adds one count to another (a worker block's to the run's). */
export function addHostCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [host, n] of Object.entries(from)) addHostCount(into, host, n);
}

/** The summary of the counted expiring hosts that `media.hosts` does not cover; undefined when there are none. */
export async function expiringMediaOf(
  counts: Record<string, number>,
  media: MediaConfig | undefined,
): Promise<ExpiringMedia | undefined> {
  const hosts = await expiringHosts();
  const covered = media ? new HostRules(media.hosts) : undefined;
  const byHost: Record<string, number> = {};
  let total = 0;
  for (const [host, n] of Object.entries(counts)) {
    // Hosts past the first thousand are not told apart: whether they expire is not known.
    const entry = host === OTHER_HOSTS ? undefined : expiringHostOf(host, hosts);
    if (entry === undefined || covered?.allows(host)) continue;
    byHost[entry] = (byHost[entry] ?? 0) + n;
    total += n;
  }
  return total === 0 ? undefined : { total, byHost };
}

/**
 * With `media` set, the counted hosts it does not carry from; undefined when there are none. A host
 * past the first thousand is not judged. URLs a preset built for files of the export folder
 * (`media.exportFiles`) are the export's files, not a host's.
 */
export function unlistedMediaOf(
  counts: Record<string, number>,
  media: MediaConfig | undefined,
  exportFolder: ExportFolder | undefined,
): UnlistedHosts | undefined {
  if (media === undefined) return undefined;
  const rules = new HostRules(media.hosts);
  const exportHost = media.exportFiles && exportFolder ? hostOf(exportFolder.baseUrl) : undefined;
  const byHost: Record<string, number> = {};
  let total = 0;
  for (const [host, n] of Object.entries(counts)) {
    if (host === OTHER_HOSTS || host === exportHost || rules.allows(host)) continue;
    byHost[host] = n;
    total += n;
  }
  return total === 0 ? undefined : { total, byHost };
}

function hostOf(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
