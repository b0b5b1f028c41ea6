/**
 * validate's media check (issue 18): attachments on hosts whose links stop working with the old
 * system (login-only, signed or expiring URLs: media/host-rules.ts EXPIRING_HOSTS) that `media`
 * does not carry. One summary, counts per host, so a person sees the size of the problem at once.
 * It reads the message sources once more (map only, no checks): about the cost of the mapping.
 */
import type { MediaConfig } from '../../config/media-schema.js';
import type { JsonObject } from '../../entities/types.js';
import { expiringHostOf, HostRules } from '../../media/host-rules.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { isPlainObject } from '../map/object-paths.js';

export interface ExpiringMedia {
  total: number;
  /** Expiring-host entry (`files.slack.com`, `*.stream-io-cdn.com`) -> attachments on it. */
  byHost: Record<string, number>;
}

/** Counts attachments on expiring hosts not on `media.hosts`; undefined when there are none. */
export async function countExpiringAttachments(
  plans: EntityPlan[],
  media: MediaConfig | undefined,
  run: { importSoftDeleted: boolean; sinceSec?: number; signal?: AbortSignal },
): Promise<ExpiringMedia | undefined> {
  const plan = plans.find((p) => p.entity.name === 'messages');
  if (plan === undefined) return undefined;
  const covered = media ? new HostRules(media.hosts) : undefined;
  const byHost: Record<string, number> = {};
  let total = 0;
  for (const input of plan.inputs) {
    const map = createMapper(mapperOptionsFor(plan.entity, plan.source, run));
    for await (const items of readInputBatches(input, { signal: run.signal, entity: plan.entity.name })) {
      for (const item of items) {
        if (item.kind !== 'record') continue;
        for (const url of attachmentUrls(map(item).payload)) {
          const host = hostOf(url);
          const expiring = host === undefined ? undefined : expiringHostOf(host);
          if (expiring === undefined || covered?.allows(host!)) continue;
          byHost[expiring] = (byHost[expiring] ?? 0) + 1;
          total++;
        }
      }
    }
  }
  return total === 0 ? undefined : { total, byHost };
}

function attachmentUrls(payload: JsonObject): string[] {
  const data = payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments)) return [];
  return data.attachments.flatMap((a) => (isPlainObject(a) && typeof a.url === 'string' ? [a.url] : []));
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
