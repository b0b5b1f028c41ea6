/**
 * Slack's Web API as the pull calls it: `GET <base>/<method>?<params>` with the token in the
 * Authorization header, and Slack's way of answering: HTTP 200 with `{"ok": false, "error": "..."}`
 * for most refusals (https://docs.slack.dev/apis/web-api/#responses), 429 with `Retry-After` when a
 * method's tier is spent (https://docs.slack.dev/apis/web-api/rate-limits). Paging is
 * `response_metadata.next_cursor` (https://docs.slack.dev/apis/web-api/pagination).
 */
import { SourceError } from '../../errors.js';
import type { SourceAnswer, SourceHttp } from '../../http/source-client.js';
import type { Verdict } from '../../http/retrying-request.js';

/** Errors that mean the token itself is refused: the run stops at once naming SLACK_TOKEN. */
const AUTH_ERRORS = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'not_allowed_token_type',
]);

/**
 * `ok: false` errors that pass: Slack's method references list `internal_error` ("likely due to a
 * transient issue on our end"), `fatal_error`, `request_timeout`, and for conversations.members
 * `fetch_members_failed` (https://docs.slack.dev/reference/methods/conversations.members#errors).
 * They go back to the one retry loop, which tries again a bounded number of times (`retries`).
 */
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'request_timeout', 'fetch_members_failed']);

/** An answer Slack gave with `ok: false` that the caller chose to handle (`not_in_channel`...). */
export interface SlackRefusal {
  ok: false;
  error: string;
  needed?: string;
}

export type SlackBody = Record<string, unknown> & { ok: true };

export const SLACK_AUTH_HINT =
  'check SLACK_TOKEN: a bot (xoxb-) or user (xoxp-) token of an app installed in the workspace (docs/pull/slack.md)';

/**
 * Calls one Web API method. Auth errors stop the pull (naming SLACK_TOKEN, never the token); a
 * `missing_scope` stops it naming the scope Slack says is needed; `ratelimited` and Slack's transient
 * errors are tried again;
 * errors listed in `allow` come back as a SlackRefusal for the caller to handle.
 */
export async function callSlack(
  http: SourceHttp,
  method: string,
  params: Record<string, string | number | boolean | undefined>,
  allow: readonly string[] = [],
): Promise<SlackBody | SlackRefusal> {
  const answer = await http.request({
    path: `/${method}`,
    query: params,
    subject: method,
    judge: (a) => judgeSlack(a, method, allow),
  });
  return answer.body as SlackBody | SlackRefusal;
}

function judgeSlack(answer: SourceAnswer, method: string, allow: readonly string[]): Verdict<SourceAnswer> {
  if (answer.status !== 200) return undefined;
  const body = answer.body as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== 'object') return { retry: `${method}: an answer that is not JSON` };
  if (body.ok === true) return { done: answer };
  const error = typeof body.error === 'string' ? body.error : 'unknown_error';
  if (allow.includes(error)) return { done: answer };
  if (error === 'ratelimited') return { retry: `${method}: ratelimited`, reason: 'ratelimited' };
  if (TRANSIENT_ERRORS.has(error)) return { retry: `${error} (a transient error on Slack's side)`, reason: error };
  if (AUTH_ERRORS.has(error)) {
    throw new SourceError('SOURCE_CREDENTIALS_REFUSED', `slack refused the credentials (${method}: ${error})`, {
      hint: SLACK_AUTH_HINT,
    });
  }
  if (error === 'missing_scope') {
    const needed = typeof body.needed === 'string' ? body.needed : 'a scope';
    throw new SourceError(
      'SOURCE_CREDENTIALS_REFUSED',
      `slack: ${method} needs the scope ${needed}, which SLACK_TOKEN lacks`,
      {
        hint: `add ${needed} to the app's scopes, reinstall it and use its new token (docs/pull/slack.md)`,
      },
    );
  }
  throw new SourceError('SOURCE_REFUSED', `slack: ${method}: ${error.slice(0, 100)}`);
}

/** The cursor of the next page, or undefined on the last one (Slack sends `""` there). */
export function nextCursor(body: SlackBody): string | undefined {
  const meta = body.response_metadata as { next_cursor?: unknown } | undefined;
  const next = meta?.next_cursor;
  return typeof next === 'string' && next !== '' ? next : undefined;
}

export function isRefusal(body: SlackBody | SlackRefusal): body is SlackRefusal {
  return body.ok === false;
}

/** An array field of an answer, its non-objects dropped. */
export function objectsOf(body: SlackBody, field: string): Array<Record<string, unknown>> {
  const value = body[field];
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
    : [];
}

/** A Slack `ts` (`1704067200.000100`) in milliseconds. */
export function tsMs(ts: unknown): number | undefined {
  const n = typeof ts === 'string' ? Number(ts) : typeof ts === 'number' ? ts : Number.NaN;
  return Number.isFinite(n) ? Math.floor(n * 1000) : undefined;
}
