/**
 * `pull stream`: Stream Chat's server-side API into the channel export v2 layout the stream preset reads.
 * Credentials: STREAM_API_KEY (sent as `api_key`, not secret) and STREAM_API_SECRET (signs the server
 * token, never sent). The default rate is the lowest per-minute limit among the endpoints the pull
 * uses on Stream's self-serve plan (Query Members and Search, 300), from Stream's rate limits page.
 */
import { STREAM_DEFAULT_BASE_URL, STREAM_ENV, streamCredentials } from './token.js';
import type { LiveSource } from '../shared/pull-types.js';
import { StreamApi } from './client.js';
import { walkStream } from './walk.js';

export const source: LiveSource = {
  name: 'stream',
  envNames: [STREAM_ENV.key, STREAM_ENV.secret],
  defaultRequestsPerMinute: 300,
  authHint: `check ${STREAM_ENV.key} and ${STREAM_ENV.secret} (the app's key and secret on the Stream dashboard)`,
  credentials(env) {
    const c = streamCredentials(env);
    return {
      headers: c.headers,
      defaultBaseUrl: STREAM_DEFAULT_BASE_URL,
      secrets: c.secrets,
      facts: { apiKey: c.apiKey },
    };
  },
  async pull(ctx) {
    await walkStream(ctx, new StreamApi(ctx.http, ctx.facts.apiKey ?? ''));
  },
};
