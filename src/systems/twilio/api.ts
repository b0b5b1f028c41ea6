/**
 * Twilio Conversations v1 as the pull reads it: the paths, page sizes and list pages of the public
 * reference and twilio-node (`src/rest/conversations/v1/service/**`). Every list answers
 * `{"<key>": [...], "meta": {"key", "page", "page_size", "next_page_url", ...}}`; the next page is the
 * absolute `meta.next_page_url` (with its `PageToken`), followed as it is, on the base URL's origin only.
 */
import { SourceError } from '../../errors.js';
import type { SourceHttp } from '../../http/source-client.js';

/** The largest `PageSize` each list takes (twilio-node: "the maximum is 100"; Users: 50). */
export const PAGE_SIZE = { services: 100, users: 50, conversations: 100, participants: 100, messages: 100 } as const;

export type ListKey = keyof typeof PAGE_SIZE;

/** One Twilio resource as the API answers it (snake_case); only the fields the pull reads are named. */
export interface TwilioItem {
  sid?: string;
  date_created?: string;
  date_updated?: string | null;
  [field: string]: unknown;
}

export interface ListPage {
  items: TwilioItem[];
  /** The absolute next page URL, or undefined on the last page. */
  next?: string;
}

const enc = encodeURIComponent;
export const paths = {
  services: () => '/v1/Services',
  users: (service: string) => `/v1/Services/${enc(service)}/Users`,
  conversations: (service: string) => `/v1/Services/${enc(service)}/Conversations`,
  participants: (service: string, conversation: string) =>
    `/v1/Services/${enc(service)}/Conversations/${enc(conversation)}/Participants`,
  messages: (service: string, conversation: string) =>
    `/v1/Services/${enc(service)}/Conversations/${enc(conversation)}/Messages`,
};

/**
 * One list page: the first (`path` with `PageSize` and `query`) or the one a next link names. With
 * `goneIsEmpty`, a 404 is an empty last page: a conversation deleted since it was listed (a resumed or
 * delta pull walks conversations an earlier run listed). A body without the list's key is the API
 * changing under us: stop, naming the request, rather than write a file that reads as "nothing there".
 */
export async function readListPage(
  http: SourceHttp,
  key: ListKey,
  from: { path: string; query?: Record<string, string> } | { next: string },
  goneIsEmpty = false,
): Promise<ListPage> {
  // A base URL given as Twilio writes it (`https://conversations.twilio.com/v1`) already holds the version.
  const first = 'next' in from ? from.next : from.path.replace(/^\/v1(?=\/)/, /\/v1$/.test(http.baseUrl) ? '' : '/v1');
  const answer = await http.request({
    path: first,
    query: 'next' in from ? undefined : { ...from.query, PageSize: PAGE_SIZE[key] },
    judge: goneIsEmpty ? (a) => (a.status === 404 ? { done: a } : undefined) : undefined,
  });
  if (answer.status === 404) return { items: [] };
  const body = answer.body;
  const list = isObject(body) ? body[key] : undefined;
  if (!Array.isArray(list))
    throw new SourceError('SOURCE_SHAPE', `twilio: the ${key} list answered without "${key}"`, {
      hint: 'check --base-url: it must be the Conversations API (https://conversations.twilio.com)',
    });
  const meta = isObject(body) ? body.meta : undefined;
  const next = isObject(meta) && typeof meta.next_page_url === 'string' ? meta.next_page_url : undefined;
  return { items: list.filter(isObject) as TwilioItem[], next: next || undefined };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An ISO-8601 date of the API (`2024-01-01T09:00:00Z`) as ms, or undefined. */
export function timeMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The later of created and updated: a list item changed at or after a delta's cutoff is pulled again. */
export function changedMs(item: unknown): number | undefined {
  if (!isObject(item)) return undefined;
  const created = timeMs(item.date_created);
  const updated = timeMs(item.date_updated);
  if (created === undefined) return updated;
  return updated === undefined ? created : Math.max(created, updated);
}
