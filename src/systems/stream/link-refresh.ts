/**
 * Fresh links for Stream CDN attachments whose signed link has expired. `pull
 * stream` marks each attachment link with where it came from, in the URL's fragment (never sent to a
 * server): `#stream-message=<message id>&attachment=<index>&field=<asset_url|image_url|thumb_url>`.
 * When the link's `Expires` is past, or its download answers 403 or 410, the media pass asks Stream for
 * the message again (`GET /messages/{id}`, which answers it with freshly signed links) and downloads
 * the attachment's new link. The credentials come from the environment, as the pull's did, and go to
 * Stream's API origin only (`STREAM_BASE_URL`, else Stream's own), through the one try loop.
 */
import { MigrationError } from '../../errors.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import { SourceClient } from '../../http/source-client.js';
import type { ExpiringLinks, LinkRefresher, RefresherOptions, Refreshed } from '../../media/expiring-links.js';
import { streamLinkOriginOf } from './links.js';
import { STREAM_DEFAULT_BASE_URL, STREAM_ENV, streamCredentials } from './token.js';

/** Get Message's self-serve limit a minute (Stream's Rate Limits by Endpoint). */
const GET_MESSAGE_PER_MINUTE = 1000;

export class StreamLinkRefresher implements LinkRefresher {
  private client: SourceClient | undefined;
  private readonly apiKey: string | undefined;
  private readonly missing: string | undefined;

  constructor(private readonly o: RefresherOptions) {
    try {
      const credentials = streamCredentials(o.env);
      this.apiKey = credentials.apiKey;
      this.client = new SourceClient({
        source: 'stream',
        baseUrl: o.env.STREAM_BASE_URL?.trim() || STREAM_DEFAULT_BASE_URL,
        headers: credentials.headers,
        authHint: `check ${STREAM_ENV.key} and ${STREAM_ENV.secret}`,
        connections: 2,
        timeoutMs: o.timeoutMs,
        limiter: new RateLimiter(GET_MESSAGE_PER_MINUTE, o.clock),
        policy: o.policy,
        clock: o.clock,
        stop: o.signal,
        proxy: o.proxy,
      });
    } catch (err) {
      if (!(err instanceof MigrationError)) throw err;
      this.missing = `set ${STREAM_ENV.key} and ${STREAM_ENV.secret} so import can ask Stream for a fresh link`;
    }
  }

  /** Asks Stream for the message again and answers the attachment's new link. */
  async refresh(url: string): Promise<Refreshed> {
    if (this.client === undefined) return { reason: `the Stream link expired: ${this.missing}` };
    const origin = streamLinkOriginOf(url)!;
    try {
      const answer = await this.client.request({
        path: `/messages/${encodeURIComponent(origin.messageId)}`,
        query: { api_key: this.apiKey },
        subject: 'GET /messages/{id} (a fresh attachment link)',
      });
      const message = (answer.body as { message?: { attachments?: unknown } } | undefined)?.message;
      const attachments = Array.isArray(message?.attachments) ? message.attachments : [];
      const url = (attachments[origin.index] as Record<string, unknown> | undefined)?.[origin.field];
      if (typeof url !== 'string' || url === '')
        return { reason: `the Stream link expired and message ${origin.messageId} no longer has the file` };
      return { url };
    } catch (err) {
      if (this.o.signal.aborted || !(err instanceof MigrationError)) throw err;
      return { reason: `the Stream link expired and asking Stream for a fresh one failed: ${err.message}` };
    }
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }
}

/** Stream's marked links, for the media pass (media/expiring-links.ts). */
export const streamExpiringLinks: ExpiringLinks = {
  system: 'Stream',
  marks: (url) => streamLinkOriginOf(url) !== undefined,
  refresher: (options) => new StreamLinkRefresher(options),
};
