/**
 * Pieces of a message every preset builds the same way: attachment properties (the service takes
 * a file's url, name, mimeType, extension and size, never the file), the message type that follows
 * from them, and a size budget for `data` (10 KB) and user/group metadata (5 KB).
 */
import type { JsonObject } from '../../entities/types.js';
import { isNeverTime, toUnixSeconds } from '../../entities/timestamps.js';

export interface Attachment {
  url: string;
  name: string;
  mimeType: string;
  extension: string;
  /** Bytes, a string of digits: as the vendor's schema types it (data-import-apis.json), as the media pass does. */
  size?: string;
}

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const MAX_URL = 3000;
export const DATA_BYTES = 10_240;
export const METADATA_BYTES = 5_120;

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  heic: 'image/heic',
  bmp: 'image/bmp',
  tgs: 'application/x-tgsticker',
  webm: 'video/webm',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  js: 'text/javascript',
  html: 'text/html',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
const EXTENSION_BY_MIME: Record<string, string> = Object.fromEntries(
  Object.entries(MIME_BY_EXTENSION)
    .reverse()
    .map(([ext, mime]) => [mime, ext]),
);

/** The MIME type of a file extension, when it is a common one. */
export const mimeOf = (extension: string | undefined): string | undefined =>
  extension === undefined ? undefined : MIME_BY_EXTENSION[extension.toLowerCase()];

export const isHttpUrl = (s: unknown): boolean =>
  typeof s === 'string' && s.length <= MAX_URL && HTTP_URL.test(s) && URL.canParse(s);

/** An http(s) URL as is; a relative media path under `mediaBaseUrl` (each segment URL-encoded); else undefined. */
export function mediaUrl(value: unknown, mediaBaseUrl: string | undefined): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (isHttpUrl(value)) return value;
  if (mediaBaseUrl === undefined || /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('(')) return undefined;
  const rel = value.replace(/\\/g, '/').replace(/^\.?\//, '');
  const url = `${mediaBaseUrl}/${rel.split('/').map(encodeURIComponent).join('/')}`;
  return isHttpUrl(url) ? url : undefined;
}

function extensionOf(name: string): string | undefined {
  const base = name.split(/[?#]/)[0].split('/').pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : undefined;
}

/** Attachment properties with the gaps filled from each other (name from the URL, MIME from the extension...). */
export function attachment(input: {
  url: string | undefined;
  name?: unknown;
  mimeType?: unknown;
  extension?: unknown;
  size?: unknown;
}): Attachment | undefined {
  const url = input.url;
  if (url === undefined || !isHttpUrl(url)) return undefined;
  const fromUrl = decodeURIComponentSafe(url.split(/[?#]/)[0].split('/').pop() ?? '');
  const name = typeof input.name === 'string' && input.name.trim() !== '' ? input.name.trim() : fromUrl || 'file';
  const givenMime =
    typeof input.mimeType === 'string' && input.mimeType.includes('/')
      ? input.mimeType.split(';')[0].trim().toLowerCase()
      : undefined;
  const givenExt =
    typeof input.extension === 'string' && /^[a-z0-9]{1,10}$/i.test(input.extension)
      ? input.extension.toLowerCase()
      : undefined;
  const extension =
    extensionOf(name) ??
    givenExt ??
    extensionOf(fromUrl) ??
    (givenMime ? EXTENSION_BY_MIME[givenMime] : undefined) ??
    'bin';
  const mimeType = givenMime ?? MIME_BY_EXTENSION[extension] ?? 'application/octet-stream';
  const out: Attachment = { url, name, mimeType, extension };
  const size = typeof input.size === 'number' && Number.isInteger(input.size) ? String(input.size) : input.size;
  if (typeof size === 'string' && /^\d+$/.test(size)) out.size = size;
  return out;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The message type for what it carries: the first attachment's MIME prefix, else text. */
export function messageType(attachments: readonly Attachment[]): 'text' | 'image' | 'video' | 'audio' | 'file' {
  if (attachments.length === 0) return 'text';
  const prefix = attachments[0].mimeType.split('/')[0];
  return prefix === 'image' || prefix === 'video' || prefix === 'audio' ? prefix : 'file';
}

/** Drops undefined, null, '' and empty arrays/objects, so metadata only says what the export said. */
export function compact(object: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0) continue;
    out[key] = value;
  }
  return out;
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Keeps `holder` within `limit` bytes of JSON by dropping the largest keys of `holder.metadata`
 * first; the dropped keys are listed in `metadata.trimmed`, so nothing disappears silently. When
 * the rest alone is too large (a 12 KB text), it is left for validation to report.
 */
export function fitMetadata(holder: JsonObject, limit: number): JsonObject {
  const metadata = holder.metadata as JsonObject | undefined;
  if (metadata === undefined || bytes(holder) <= limit) return holder;
  const kept: JsonObject = { ...metadata };
  const trimmed: string[] = [];
  const bySize = Object.keys(kept).sort((a, b) => bytes(kept[b]) - bytes(kept[a]));
  for (const key of bySize) {
    delete kept[key];
    trimmed.push(key);
    if (bytes({ ...holder, metadata: { ...kept, trimmed } }) <= limit) break;
  }
  return { ...holder, metadata: { ...kept, trimmed } };
}

/**
 * Seconds from any export timestamp (seconds, ms, ISO, Slack's "1452837318.000002"), for an optional
 * field: undefined if none, and for a "never" value (0, negative, the epoch in the export's zone, a
 * zero date: entities/timestamps.ts), which the service must not be sent.
 */
export function seconds(value: unknown): number | undefined {
  const s = sentSeconds(value);
  return s === undefined || isNeverTime(s) ? undefined : s;
}

/**
 * A message's sentAt from the first of `values` that holds a real time; failing that, the first
 * "never" value as it is, so that validation reports it (a message cannot be sent without its time);
 * undefined when none is set (0 included, as exports write it for "none": skipped `no-timestamp`).
 */
export function sentSeconds(...values: unknown[]): number | undefined {
  let never: number | undefined;
  for (const value of values) {
    if (value === undefined || value === null || value === '' || value === 0) continue;
    const s = toUnixSeconds(value);
    if (s === undefined) continue;
    if (!isNeverTime(s)) return s;
    never ??= s;
  }
  return never;
}

/** At most `max` characters (code points), so a name stays within the service's 100. */
export function clip(text: string, max = 100): string {
  const points = Array.from(text.trim());
  return points.length <= max ? points.join('') : points.slice(0, max).join('');
}

export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
