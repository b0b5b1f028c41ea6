/**
 * How `pull stream` marks an attachment link with where it came from, so the media pass can ask Stream
 * for a fresh one once the signed link has expired (src/media/link-refresh.ts): the URL's fragment, which
 * no client sends to a server, `#stream-message=<message id>&attachment=<index>&field=<the link's field>`.
 */
/** Where a pulled Stream attachment came from. */
export interface StreamLinkOrigin {
  messageId: string;
  index: number;
  field: 'asset_url' | 'image_url' | 'thumb_url';
}

const FIELDS = new Set(['asset_url', 'image_url', 'thumb_url']);

/** The fragment the pull puts on an attachment link. */
export function streamLinkFragment(origin: StreamLinkOrigin): string {
  return `#stream-message=${encodeURIComponent(origin.messageId)}&attachment=${origin.index}&field=${origin.field}`;
}

/** The origin a link carries in its fragment, if the pull put one there. */
export function streamLinkOriginOf(url: string): StreamLinkOrigin | undefined {
  const at = url.indexOf('#stream-message=');
  if (at < 0) return undefined;
  const p = new URLSearchParams(url.slice(at + 1));
  const messageId = p.get('stream-message');
  const index = Number(p.get('attachment'));
  const field = p.get('field') ?? '';
  if (!messageId || !Number.isInteger(index) || index < 0 || !FIELDS.has(field)) return undefined;
  return { messageId, index, field: field as StreamLinkOrigin['field'] };
}
