/**
 * The two ways reads page (docs/service-reads.md): numbered pages for users, groups and members, a cursor of
 * service ids for messages. Out-of-range sizes are clamped, as lenient services do; text where a
 * number belongs is a 400.
 */

export const MAX_PAGE_SIZE = 1000;

export class BadQuery extends Error {}

/** A whole number from the query, or the fallback when absent; `BadQuery` when not a number. */
export function queryNumber(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d{1,15}$/.test(raw)) throw new BadQuery(`${name} must be a whole number`);
  return Number(raw);
}

/** `true` / `1` are true; anything else false. */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  return raw === 'true' || raw === '1';
}

export interface PageAnswer<T> {
  data: T[];
  meta: {
    pagination: { total: number; count: number; per_page: number; current_page: number; total_pages: number };
  };
}

/**
 * One numbered page of `all`. `total` stays 0 as in every vendor example, so a client that trusts it
 * alone is caught by the tests.
 */
export function pageOf<S, T>(all: readonly S[], query: URLSearchParams, toItem: (s: S) => T): PageAnswer<T> {
  const perPage = Math.min(MAX_PAGE_SIZE, Math.max(1, queryNumber(query, 'perPage', 100)));
  const page = Math.max(1, queryNumber(query, 'page', 1));
  const slice = all.slice((page - 1) * perPage, page * perPage);
  return {
    data: slice.map(toItem),
    meta: {
      pagination: {
        total: 0,
        count: slice.length,
        per_page: perPage,
        current_page: page,
        total_pages: Math.ceil(all.length / perPage),
      },
    },
  };
}

/** Where a cursor read starts: after `afterId` going up, or below `beforeId` going down. */
export interface CursorQuery {
  limit: number;
  afterId?: number;
  beforeId?: number;
}

/**
 * `limit` (default 10, at most 1000), `id` and `affix`: `append` reads the messages after `id`,
 * `prepend` those before it. Without `id`, `append` (the default) starts at the oldest message and
 * `prepend` ends at the newest.
 */
export function cursorQuery(query: URLSearchParams): CursorQuery {
  const limit = Math.min(MAX_PAGE_SIZE, Math.max(1, queryNumber(query, 'limit', 10)));
  const affix = query.get('affix') ?? 'append';
  if (affix !== 'append' && affix !== 'prepend') throw new BadQuery('affix must be append or prepend');
  const id = query.get('id');
  if (id !== null && id !== '' && !/^\d{1,15}$/.test(id)) throw new BadQuery('id must be a message id');
  const at = id === null || id === '' ? undefined : Number(id);
  if (affix === 'prepend') return { limit, beforeId: at ?? Number.MAX_SAFE_INTEGER };
  return { limit, afterId: at };
}
