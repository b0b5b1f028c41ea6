/**
 * Twilio's list pages for the fake: `PageSize` (default 50, at most the list's maximum), an opaque
 * `PageToken` in the absolute `meta.next_page_url`, and `meta` as the API writes it. A token holds
 * where the next page starts, so items added meanwhile (new messages) never shift a page already read.
 */
import type { FakeReply } from './types.js';

export interface PageQuery {
  size: number;
  /** The token of the page asked for, decoded; undefined for the first page. */
  token?: { at: number; page: number };
}

export function pageQuery(url: URL, max: number): PageQuery | FakeReply {
  const raw = url.searchParams.get('PageSize');
  const size = raw === null ? 50 : Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > max)
    return badRequest(`PageSize must be a whole number from 1 to ${max}`);
  const token = url.searchParams.get('PageToken');
  if (token === null) return { size };
  const m = /^PT(\d+)-(\d+)$/.exec(token);
  if (m === null) return badRequest('Invalid PageToken');
  return { size, token: { at: Number(m[1]), page: Number(m[2]) } };
}

/** Twilio's error body (`code`, `message`, `more_info`, `status`). */
export function twilioError(status: number, code: number, message: string): FakeReply {
  return { status, body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status } };
}

export const badRequest = (message: string) => twilioError(400, 20001, message);

/**
 * The page's body. `nextAt`: where the next page starts (undefined: this is the last). Links keep the
 * request's own parameters (`Order`), as Twilio's do.
 */
export function listBody(
  origin: string,
  url: URL,
  key: string,
  items: unknown[],
  query: PageQuery,
  nextAt: number | undefined,
): Record<string, unknown> {
  const page = query.token?.page ?? 0;
  const link = (token?: string, pageNo = page) => {
    const u = new URL(`${origin}${url.pathname}`);
    for (const [k, v] of url.searchParams) if (k !== 'PageToken' && k !== 'Page') u.searchParams.set(k, v);
    u.searchParams.set('PageSize', String(query.size));
    u.searchParams.set('Page', String(pageNo));
    if (token) u.searchParams.set('PageToken', token);
    return u.href;
  };
  return {
    [key]: items,
    meta: {
      page,
      page_size: query.size,
      first_page_url: link(undefined, 0),
      previous_page_url: null,
      url: link(query.token && `PT${query.token.at}-${page}`),
      next_page_url: nextAt === undefined ? null : link(`PT${nextAt}-${page + 1}`, page + 1),
      key,
    },
  };
}
