/**
 * The media pass and the rewrite it makes possible. The pass reads the message sources once ahead of
 * the message phase (alongside users, groups and members), maps each record and offers its
 * attachments to the carrier, holding back reading while enough files wait (memory stays flat); it
 * counts the attachments whose host is not on `media.hosts`. The message phase then rewrites each
 * record's attachments from what the carrier answers: the bucket's URL with the size and type read.
 * A message with a file not carried is held back (import-pass.ts) as
 * an open reject, `media.not-carried`, and tried again by every later run until its files are carried.
 */
import { MEDIA_NOT_CARRIED, type JsonObject, type MappedRecord } from '../../entities/types.js';
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { RejectEntry } from '../../checkpoint/rejects-file.js';
import { rejectOfRecord } from './phase-tally.js';
import type { MediaCarrier } from '../../media/carrier.js';
import type { MediaSources } from '../../media/media-sources.js';
import type { DeclaredType } from '../../media/web-page.js';
import { addHostCount } from '../../media/unlisted-hosts.js';
import { readInputBatches, type EntityPlan } from '../../sources/plan.js';
import { createMapper, mapperOptionsFor } from '../map/map.js';
import { lookAt } from '../unchanged-file.js';
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
    /** The import's: a file it will not read again is not read here either. */
    checkpoint: CheckpointStore;
  },
): Promise<void> {
  for (const input of plan.inputs) {
    // What the message phase will read of the file: nothing when unchanged, from where a grown one ends.
    const found = await lookAt(run.checkpoint, plan.entity.name, input).catch(() => undefined);
    if (found?.unchanged) continue;
    const map = createMapper(mapperOptionsFor(plan.entity, plan.source, run));
    const options = { signal: run.stop, entity: plan.entity.name, from: found?.from };
    for await (const items of readInputBatches(input, options)) {
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

/** `replay --without-missing-files`: messages held only for files gone at their source go in without them. */
export interface WithoutMissing {
  /** The person's word on why, kept beside the note in the message's metadata (`--reason`). */
  reason?: string;
}

/** A file the source no longer has: 404 or 410 from its host, or no such file in the export folder. */
export const isMissingFile = (reason: string): boolean =>
  /^HTTP (404|410)\b/.test(reason) || reason.startsWith('no such file in the export');

/**
 * The record with its carried attachments pointing at the bucket; the same record when nothing changes.
 * With `without`, a message whose files not carried are all missing at their source goes in without
 * them: its text kept, and what was left out noted in `data.metadata.notCarried`.
 */
export function rewriteMedia(
  record: MappedRecord,
  inputPath: string | undefined,
  media: MediaRun,
  without?: WithoutMissing,
): MappedRecord {
  const data = record.payload.data;
  if (!isPlainObject(data) || !Array.isArray(data.attachments) || data.attachments.length === 0) return record;
  let changed = false;
  const attachments: unknown[] = [];
  // `at`: the attachment's place in `attachments`, where it stays as read while its message is held.
  const notCarried: Array<{ url: string; reason: string; name?: unknown; at: number }> = [];
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
    } else {
      notCarried.push({ url: source.display, reason: answer.reason, name: a.name, at: attachments.length });
      attachments.push(a);
    }
  }
  if (!changed) return record;
  if (without && notCarried.length > 0 && notCarried.every((n) => isMissingFile(n.reason))) {
    return withoutMissing(record, attachments, carried, notCarried, without);
  }
  const held = notCarried.map(({ url, reason }) => ({ url, reason }));
  // A file not carried holds its message back (import-pass.ts): nothing of it is sent, so it stays as read.
  if (notCarried.length > 0) return { ...record, media: { carried, notCarried: held } };
  const newData: JsonObject = { ...data, attachments };
  return { ...record, payload: { ...record.payload, data: newData }, media: { carried, notCarried: held } };
}

/**
 * The message without its missing files: the carried ones kept, a note of each one left out (its URL,
 * name and why) in `data.metadata.notCarried`. A media message left with no file becomes a text message,
 * its caption as text, else a line naming what was not carried: the service needs a text to show.
 */
function withoutMissing(
  record: MappedRecord,
  attachments: unknown[],
  carried: string[],
  missing: Array<{ url: string; reason: string; name?: unknown; at: number }>,
  without: WithoutMissing,
): MappedRecord {
  const data = record.payload.data as JsonObject;
  const gone = new Set(missing.map((m) => m.at));
  const kept = attachments.filter((_, i) => !gone.has(i));
  const files = missing.map(({ url, reason, name }) => ({
    url,
    reason,
    ...(typeof name === 'string' ? { name } : {}),
  }));
  const metadata = isPlainObject(data.metadata) ? data.metadata : {};
  const note = { files, ...(without.reason ? { reason: without.reason } : {}) };
  const newData: JsonObject = { ...data, attachments: kept, metadata: { ...metadata, notCarried: note } };
  const payload: JsonObject = { ...record.payload, data: newData };
  if (kept.length === 0) {
    delete newData.attachments;
    const custom = payload.category === 'custom';
    if (!custom && payload.type !== 'text') {
      payload.type = 'text';
      const caption = typeof data.text === 'string' && data.text !== '' ? data.text : undefined;
      newData.text = caption ?? `(${files.map((f) => f.name ?? f.url).join(', ')}: not carried, missing at the source)`;
    }
  }
  const media = { carried, notCarried: [], without: files.map(({ url, reason }) => ({ url, reason })) };
  return { ...record, payload, media };
}

/**
 * Keeps the ledger's attachments not carried in step with this reading: a file carried now clears its
 * hold; a message with a file not carried is held back (true), so no message goes out pointing at the
 * old system while a later run could still carry its file.
 */
export function heldForMedia(ledger: CheckpointStore, record: MappedRecord): boolean {
  const { carried, notCarried, without = [] } = record.media!;
  // A file given up (sent without) no longer holds anything, as one carried.
  for (const url of [...carried, ...without.map((w) => w.url)]) ledger.setMediaHold(url, undefined);
  for (const { url, reason } of notCarried)
    ledger.setMediaHold(url, { reason, file: record.file, line: record.line, ordinal: record.ordinal });
  return notCarried.length > 0;
}

export function mediaReject(record: MappedRecord): RejectEntry {
  const [first, ...more] = record.media!.notCarried;
  const others = more.length > 0 ? ` (and ${more.length} more)` : '';
  const message = `the attachment ${first.url} could not be carried: ${first.reason}${others}`;
  return { ...rejectOfRecord(record, MEDIA_NOT_CARRIED, message), field: 'data.attachments' };
}
