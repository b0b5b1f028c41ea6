/**
 * The media pass and the rewrite it makes possible. The pass reads the message sources once ahead of
 * the message phase (alongside users, groups and members), maps each record and offers its
 * attachments to the carrier, holding back reading while enough files wait (memory stays flat); it
 * counts the attachments whose host is not on `media.hosts`. The message phase then rewrites each
 * record's attachments from what the carrier answers: the bucket's URL with the size and type read.
 * A message with a file not carried is held back (import-pass.ts) as
 * an open reject, `media.not-carried`, and tried again by every later run until its files are carried.
 */
import type { JsonObject, MappedRecord } from '../../entities/types.js';
import type { MediaCarrier } from '../../media/carrier.js';
import type { MediaSources } from '../../media/media-sources.js';
import type { DeclaredType } from '../../media/web-page.js';
import { addHostCount } from '../../media/unlisted-hosts.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { isPlainObject } from '../map/object-paths.js';

export interface MediaRun {
  carrier: MediaCarrier;
  sources: MediaSources;
  /** Without a trailing slash. */
  publicBaseUrl: string;
  /** Attachments left at their URL as their host is not on `media.hosts`, by host (unlisted-hosts.ts). */
  unlisted: Record<string, number>;
}

/** Files queued per concurrent slot before reading waits: enough to keep every slot busy. */
const QUEUE_PER_SLOT = 4;

/** Offers every attachment of the messages to the carrier and waits until all are carried or failed. */
export async function carryMessageMedia(
  plan: EntityPlan,
  media: MediaRun,
  run: {
    importSoftDeleted: boolean;
    sinceSec?: number;
    retentionCutoffSec?: number;
    stop: AbortSignal;
    queueLimit: number;
  },
): Promise<void> {
  for (const input of plan.inputs) {
    const map = createMapper(mapperOptionsFor(plan.entity, plan.source, run));
    for await (const items of readInputBatches(input, { signal: run.stop, entity: plan.entity.name })) {
      for (const item of items) {
        if (item.kind !== 'record') continue;
        const record = map(item);
        if (record.skip !== undefined) continue;
        for (const a of attachmentsOf(record.payload)) {
          const source = media.sources.sourceOf(a.url, input.path);
          if (source === undefined) {
            const host = media.sources.unlistedHostOf(a.url);
            if (host !== undefined) addHostCount(media.unlisted, host);
            continue;
          }
          void media.carrier.offer({ ...source, declared: declaredTypeOf(a) });
          while (media.carrier.pending >= run.queueLimit * QUEUE_PER_SLOT && !run.stop.aborted)
            await Promise.race(media.carrier.inFlightList());
        }
      }
      if (run.stop.aborted) break;
    }
    if (run.stop.aborted) break;
  }
  await media.carrier.idle();
}

function declaredTypeOf(a: JsonObject): DeclaredType {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return { mimeType: text(a.mimeType), extension: text(a.extension), name: text(a.name) };
}

function attachmentsOf(payload: JsonObject): JsonObject[] {
  const data = payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments)) return [];
  return data.attachments.filter(isPlainObject);
}

/** The record with its carried attachments pointing at the bucket; the same record when nothing changes. */
export function rewriteMedia(record: MappedRecord, inputPath: string | undefined, media: MediaRun): MappedRecord {
  const data = record.payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments) || data.attachments.length === 0) return record;
  let changed = false;
  const attachments: unknown[] = [];
  const notCarried: Array<{ url: string; reason: string }> = [];
  const carried: string[] = [];
  for (const a of data.attachments) {
    const source = isPlainObject(a) ? media.sources.sourceOf(a.url, inputPath) : undefined;
    const answer = source && media.carrier.answerFor(source.source);
    if (!isPlainObject(a) || source === undefined || answer === undefined) {
      attachments.push(a);
      continue;
    }
    changed = true;
    if (answer.ok) {
      carried.push(source.display);
      const { key, size, mimeType } = answer.entry;
      // A string, as the vendor's schema types `size` (data-import-apis.json), whatever the export wrote.
      const carriedFile = {
        url: `${media.publicBaseUrl}/${key}`,
        size: String(size),
        ...(mimeType ? { mimeType } : {}),
      };
      attachments.push({ ...a, ...carriedFile });
    } else notCarried.push({ url: source.display, reason: answer.reason });
  }
  if (!changed) return record;
  // A file not carried holds its message back (import-pass.ts): nothing of it is sent, so it stays as read.
  if (notCarried.length > 0) return { ...record, media: { carried, notCarried } };
  const newData: JsonObject = { ...data, attachments };
  return { ...record, payload: { ...record.payload, data: newData }, media: { carried, notCarried } };
}
