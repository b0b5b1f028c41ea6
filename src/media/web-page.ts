/**
 * A web page where a file was expected. Hosts that need a login (Slack's `files.slack.com` without
 * the token or the `files:read` scope) answer a file request with a redirect to a sign-in page, and
 * its HTML arrives with status 200: stored, it would replace the user's file with a login form.
 * A download is refused when the server calls it HTML or its first bytes are HTML, unless the
 * attachment itself says it is a web page.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** What an attachment says it is: its MIME type, extension and name, as the export wrote them. */
export interface DeclaredType {
  mimeType?: string;
  extension?: string;
  name?: string;
}

/** Bytes looked at: a page's doctype or first tag comes within them. */
const HEAD_BYTES = 512;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const HTML_START = /^(?:\uFEFF)?\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|meta|script)[\s>/]/i;

/** Keeps the first bytes that pass, for `looksLikeHtml`. */
export function keepHead(into: { head: Buffer }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      if (into.head.length < HEAD_BYTES)
        into.head = Buffer.concat([into.head, chunk.subarray(0, HEAD_BYTES - into.head.length)]);
      done(null, chunk);
    },
  });
}

export function looksLikeHtml(head: Buffer): boolean {
  return HTML_START.test(head.toString('latin1'));
}

function declaresHtml(declared: DeclaredType | undefined): boolean {
  const type = declared?.mimeType?.split(';')[0].trim().toLowerCase();
  if (type !== undefined && HTML_TYPES.has(type)) return true;
  const ext = (declared?.extension ?? declared?.name?.split('.').pop() ?? '').toLowerCase().replace(/^\./, '');
  return ext === 'html' || ext === 'htm' || ext === 'xhtml';
}

/** Slack's file hosts, and its `files-pri` paths on any host (a proxy, a fake). */
function isSlackFile(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === 'slack.com' || host.endsWith('.slack.com') || /^\/files-(?:pri|tmb)\//.test(url.pathname);
}

/**
 * Why a download that came back as a web page is not the file, or undefined when it is the file.
 * `urls`: the attachment's URL, then the one that answered (after redirects). `servedType` is the
 * answer's Content-Type (without parameters).
 */
export function webPageReason(
  urls: readonly [URL, URL],
  servedType: string | undefined,
  head: Buffer,
  declared: DeclaredType | undefined,
): string | undefined {
  if (declaresHtml(declared)) return undefined;
  const served = servedType !== undefined && HTML_TYPES.has(servedType);
  if (!served && !looksLikeHtml(head)) return undefined;
  const what = declared?.mimeType ?? (declared?.extension ? `.${declared.extension}` : 'a file');
  const how = served ? `the server said ${servedType}` : 'its bytes are HTML';
  const [asked, answered] = urls;
  if (isSlackFile(asked) || isSlackFile(answered)) {
    return (
      `Slack answered with its sign-in page, not the file (${how}; the attachment is ${what}): the token ` +
      'needs the files:read scope, and media.hosts must send it as "Authorization: Bearer" to ' +
      `${asked.hostname} (docs/pull/slack.md)`
    );
  }
  return (
    `a web page came instead of the file (${how}; the attachment is ${what}): a sign-in or error page, ` +
    `not stored; check the credentials media.hosts sends to ${asked.hostname}`
  );
}
