/**
 * Where `pull stream` writes what it reads: Stream's channel export v2 layout (line-separated JSON, each
 * line one entity as `{"type": ..., "data": ...}`), which the stream preset reads (docs/presets/stream.md).
 * Objects are kept as the API gave them; a member or message line also names its channel (`cid`), since
 * a v2 line stands alone, and an uploaded file's links say which message they came from (markLinks).
 */
import { streamLinkFragment } from './links.js';
import type { FileLayout, StreamSpec } from '../shared/pull-types.js';
import type { ChannelRef, StreamObject } from './client.js';

export const NDJSON: FileLayout = 'ndjson';

/** The `type` of a v2 line: what the preset reads, and what `init` knows a Stream file by. */
export const LINE_TYPES: ReadonlySet<string> = new Set(['user', 'channel', 'member', 'message', 'reaction']);

export interface Line {
  type: 'user' | 'channel' | 'member' | 'message';
  data: StreamObject;
}

const dataOf = (item: unknown): StreamObject => (item as Line).data;
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Milliseconds of an RFC 3339 time, or undefined. */
export function timeMs(v: unknown): number | undefined {
  const ms = typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** A channel's files: `type--id`, escaped so that `!members-...` and custom ids are safe file names. */
export function channelFileName(channel: ChannelRef): string {
  return `${encodeURIComponent(channel.type)}--${encodeURIComponent(channel.id)}`.replace(/[%*]/g, '_');
}

export function userLine(u: StreamObject): Line {
  return { type: 'user', data: u };
}

export function channelLine(c: StreamObject): Line {
  return { type: 'channel', data: c };
}

export function memberLine(m: StreamObject, channel: ChannelRef): Line {
  return { type: 'member', data: { ...m, cid: channel.cid, channel_type: channel.type, channel_id: channel.id } };
}

export function messageLine(m: StreamObject, channel: ChannelRef): Line {
  const data: StreamObject = { ...m, cid: text(m.cid) ?? channel.cid };
  if (Array.isArray(m.attachments)) data.attachments = m.attachments.map((a, i) => markLinks(a, String(m.id), i));
  return { type: 'message', data };
}

const LINK_FIELDS = ['asset_url', 'image_url', 'thumb_url'] as const;

/**
 * An uploaded file's links (Stream's CDN signs them and they expire) get where they came from in their
 * fragment, so the media pass can ask Stream for fresh ones (http/stream-links.ts). Link previews
 * (`og_scrape_url`) point at the web page's own images: left as they are.
 */
function markLinks(a: unknown, messageId: string, index: number): unknown {
  if (typeof a !== 'object' || a === null || (a as StreamObject).og_scrape_url !== undefined) return a;
  const out: StreamObject = { ...(a as StreamObject) };
  for (const field of LINK_FIELDS) {
    const url = text(out[field]);
    if (url !== undefined && !url.includes('#')) out[field] = url + streamLinkFragment({ messageId, index, field });
  }
  return out;
}

export const usersSpec: StreamSpec = {
  id: 'users',
  file: 'users.ndjson',
  layout: NDJSON,
  entity: 'users',
  itemKey: (item) => String(dataOf(item).id),
  // Changed or made since the cutoff: Stream moves `updated_at` on every change of the user.
  itemTimeMs: (item) => timeMs(dataOf(item).updated_at) ?? timeMs(dataOf(item).created_at),
};

export const channelsSpec: StreamSpec = {
  id: 'channels',
  file: 'channels.ndjson',
  layout: NDJSON,
  entity: 'groups',
  itemKey: (item) => String(dataOf(item).cid),
  itemTimeMs: (item) => timeMs(dataOf(item).updated_at) ?? timeMs(dataOf(item).created_at),
};

export function membersSpec(channel: ChannelRef): StreamSpec {
  return {
    id: `members:${channel.cid}`,
    file: `members/${channelFileName(channel)}.ndjson`,
    layout: NDJSON,
    entity: 'members',
    itemKey: (item) => `${channel.cid}|${String(dataOf(item).user_id ?? '')}`,
    itemTimeMs: (item) => timeMs(dataOf(item).created_at),
  };
}

export function messagesSpec(channel: ChannelRef): StreamSpec {
  return {
    id: `messages:${channel.cid}`,
    file: `messages/${channelFileName(channel)}.ndjson`,
    layout: NDJSON,
    entity: 'messages',
    channel: channel.cid,
    itemKey: (item) => String(dataOf(item).id),
    itemTimeMs: (item) => timeMs(dataOf(item).created_at),
  };
}
