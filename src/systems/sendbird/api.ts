/**
 * Sendbird Platform API v3: the paths, parameters and answer shapes the pull reads, and how the API says
 * "not allowed". Each is from Sendbird's public reference (docs/pull/sendbird.md names the pages).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SourceError } from '../../errors.js';
import type { SourceAnswer, SourceHttp, SourceRequest } from '../../http/source-client.js';
import type { Credentials } from '../shared/pull-types.js';

export const ENV_NAMES = ['SENDBIRD_APP_ID', 'SENDBIRD_API_TOKEN'] as const;
export const AUTH_HINT = 'check SENDBIRD_API_TOKEN (a master or secondary API token of the app) and SENDBIRD_APP_ID';

/** Lists page at most 100 items (users, channels, members); messages at most 200 after the anchor. */
export const LIST_LIMIT = 100;
export const MESSAGES_LIMIT = 200;

/**
 * Sendbird answers a refused token with HTTP 400 and its own code (error codes page: 400401
 * InvalidApiToken, 400108 UnauthorizedRequest, 403100 PermissionDenied), not a 401: read as the
 * credentials' failure, it stops the pull at once instead of reading as a bad request.
 */
const AUTH_CODES = new Set([400401, 400108, 403100]);

export type SendbirdObject = Record<string, unknown>;
export type ChannelType = 'group_channels' | 'open_channels';

export function sendbirdCredentials(env: Readonly<Record<string, string | undefined>>): Credentials {
  const missing = ENV_NAMES.filter((name) => !env[name]?.trim());
  if (missing.length > 0) {
    throw new SourceError(
      'SOURCE_CREDENTIALS_MISSING',
      `pull sendbird needs ${missing.join(' and ')} in the environment`,
      {
        hint: 'the app id and an API token are on the Sendbird dashboard, Settings > Application > General',
      },
    );
  }
  const appId = env.SENDBIRD_APP_ID!.trim();
  const token = env.SENDBIRD_API_TOKEN!.trim();
  return {
    headers: { 'Api-Token': token },
    // The app id is case-sensitive in the host name (Sendbird's "Prepare to use API").
    defaultBaseUrl: `https://api-${appId}.sendbird.com`,
    secrets: [token],
    facts: { appId },
  };
}

/** Sendbird's "resource not found" (HTTP 400): a channel deleted since it was listed. */
const NOT_FOUND = 400201;
/** A list's page token that expired (error codes: 400109), as one kept over a long stop does. */
const TOKEN_EXPIRED = 400109;

const codeOf = (answer: SourceAnswer) => (answer.body as { code?: unknown } | undefined)?.code;

/** Reads Sendbird's own error codes before the usual reading of the status. */
function judge(answer: SourceAnswer): ReturnType<NonNullable<SourceRequest['judge']>> {
  const code = codeOf(answer);
  if (answer.status >= 400 && typeof code === 'number' && AUTH_CODES.has(code)) {
    throw new SourceError(
      'SOURCE_CREDENTIALS_REFUSED',
      `sendbird refused the credentials (HTTP ${answer.status} ${code})`,
      {
        hint: AUTH_HINT,
      },
    );
  }
  return undefined;
}

/**
 * Sendbird names its wait X-RateLimit-RetryAfter (seconds, fractional) and sends no Retry-After; its
 * X-RateLimit-Reset is the seconds left until the window resets (its 429 says `reset: 0.9698s`), not
 * the epoch time the limiter reads, so it is made one from the run's clock.
 */
export function rateHeadersOf(headers: IncomingHttpHeaders, nowMs: number): IncomingHttpHeaders {
  const out = { ...headers };
  const wait = headers['x-ratelimit-retryafter'];
  if (headers['retry-after'] === undefined && typeof wait === 'string') out['retry-after'] = wait;
  const reset = Number(headers['x-ratelimit-reset']);
  if (typeof headers['x-ratelimit-reset'] === 'string' && Number.isFinite(reset)) {
    out['x-ratelimit-reset'] = String(nowMs / 1000 + reset);
  }
  return out;
}

/** A page's JSON object, or the Sendbird error code among `answered` that it answered instead. */
async function getPage(
  http: SourceHttp,
  path: string,
  query: SourceRequest['query'],
  answered: readonly number[] = [],
): Promise<SendbirdObject | number> {
  const answer = await http.request({
    path,
    query,
    judge: (a) => {
      const code = codeOf(a);
      return judge(a) ?? (a.status === 400 && answered.includes(code as number) ? { done: a } : undefined);
    },
    rateHeaders: rateHeadersOf,
  });
  if (answer.status === 400) return codeOf(answer) as number;
  if (typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
    throw new SourceError('SOURCE_SHAPE', `sendbird: GET ${path}: the answer is not a JSON object`);
  }
  return answer.body as SendbirdObject;
}

/**
 * One page of a token-paged list: its items under `key` and the next page's token ('' at the end);
 * `expired` when Sendbird refused the token as expired.
 */
export async function listPage(
  http: SourceHttp,
  path: string,
  key: string,
  query: SourceRequest['query'],
  token: string | undefined,
): Promise<{ items: SendbirdObject[]; next?: string; expired?: true }> {
  const body = await getPage(http, path, { limit: LIST_LIMIT, ...query, token }, [TOKEN_EXPIRED]);
  if (typeof body === 'number') return { items: [], expired: true };
  const items = Array.isArray(body[key]) ? (body[key] as unknown[]).filter(isObject) : [];
  const next = typeof body.next === 'string' && body.next !== '' ? body.next : undefined;
  return next === undefined ? { items } : { items, next };
}

export const usersPath = '/v3/users';
export const channelsPath = (type: ChannelType) => `/v3/${type}`;
export const membersPath = (url: string) => `/v3/group_channels/${encodeURIComponent(url)}/members`;
export const messagesPath = (type: ChannelType, url: string) => `/v3/${type}/${encodeURIComponent(url)}/messages`;

/**
 * The messages sent at or after `ts` (ms), oldest first: `include=true` keeps those sent in the same
 * millisecond as the anchor, which the walk drops by id. Replies come in the channel's own list
 * (`include_reply_type=ALL`) with their `parent_message_id`; threads' counts with `include_thread_info`.
 * Undefined when the channel is gone (deleted since a pull listed it).
 */
export async function messagesFrom(
  http: SourceHttp,
  type: ChannelType,
  url: string,
  ts: number,
): Promise<SendbirdObject[] | undefined> {
  const query = {
    message_ts: ts,
    prev_limit: 0,
    next_limit: MESSAGES_LIMIT,
    include: true,
    reverse: false,
    include_reply_type: 'ALL',
    include_thread_info: true,
    include_reactions: true,
    with_sorted_meta_array: true,
  };
  const body = await getPage(http, messagesPath(type, url), query, [NOT_FOUND]);
  if (typeof body === 'number') return undefined;
  return Array.isArray(body.messages) ? (body.messages as unknown[]).filter(isObject) : [];
}

export function isObject(v: unknown): v is SendbirdObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sendbird writes channel and user creation in seconds and messages in ms: both read as ms. */
export function msOf(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  return n < 100_000_000_000 ? n * 1000 : n;
}
