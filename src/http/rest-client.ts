import { RemoteError } from '../errors.js';
import type { KeyCheck } from './key-check.js';
import { type EndpointOptions, openEndpoint, type ServiceEndpoint } from './service-endpoint.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from './rate-limiter.js';
import type { RetryPolicy } from './retry-policy.js';
import {
  type RequestEvents,
  retryingRequest,
  sendToService,
  type ServiceAnswer,
  type TryLoop,
} from './retrying-request.js';

/** The most a list endpoint gives per page (`perPage`, `limit`: docs/verify.md). */
export const READ_PAGE_SIZE = 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface RestClientOptions extends EndpointOptions {
  /**
   * The limiter of the service's "standard operations" (read-api.md): reads and deletes share the
   * app's budget for them (`restRequestsPerMinute`), apart from the import's 60 a minute.
   */
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  /** Aborts requests under way and every wait. */
  stop: AbortSignal;
  events?: RequestEvents;
  /** What a run that gives up keeps, for the hint (`the undo progress is saved`). */
  saved?: string;
  /** The run's check of its key, shared with its other clients (key-check.ts). */
  keyCheck?: KeyCheck;
}

/** How one delete ended: the record is gone (now, or was already), or the service refused it. */
export type DeleteResult = { outcome: 'deleted' | 'not-found' } | { outcome: 'refused'; code: string; status: number };

const NOT_FOUND_CODES: readonly string[] = [
  'ERR_UID_NOT_FOUND',
  'ERR_GUID_NOT_FOUND',
  'ERR_NOT_A_MEMBER',
  'ERR_MESSAGE_ID_NOT_FOUND',
  'ERR_MSG_NOT_FOUND',
];

/**
 * The service's REST API beside the import (read-api.md): GETs with the paging it describes, and the
 * DELETEs of an undo, through one dispatcher, one limiter and the one try loop (retrying-request.ts).
 * Both are safe to repeat: a GET changes nothing, and a record already gone (`*_NOT_FOUND`) counts
 * as deleted, so a resumed undo may ask again.
 */
export class RestClient {
  private readonly at: ServiceEndpoint;
  private readonly loop: TryLoop;
  /**
   * Fired by close: requests still trying (siblings of a delete that ended the run) neither wait nor try
   * again, else they kept the process alive through their whole budget after the run had failed.
   */
  private readonly closing = new AbortController();

  constructor(options: RestClientOptions) {
    this.at = openEndpoint(options);
    const { limiter, policy, clock, stop, events, saved, keyCheck } = options;
    this.loop = { limiter, policy, clock, stop, events, saved, keyCheck, abandon: this.closing.signal };
  }

  /**
   * One GET of `path` (after the version segment); the parsed answer, or undefined when the service
   * answers with one of `notFound` (an unknown id).
   */
  get(
    path: string,
    query: Record<string, string | number> = {},
    notFound: readonly string[] = [],
    headers: Record<string, string> = {},
  ): Promise<Obj | undefined> {
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const target = `${this.at.prefix}${path}${search ? `?${search}` : ''}`;
    const subject = `GET /${path}`;
    return retryingRequest(this.loop, {
      subject,
      route: this.at.route,
      timeoutMs: this.at.timeoutMs,
      send: (signal) => sendToService(this.at, { method: 'GET', path: target, headers }, signal),
      judge: (answer, kind) => {
        if (answer.status === 200) return { done: parseAnswer(answer.text, path) };
        if (answer.code !== undefined && notFound.includes(answer.code)) return { done: undefined };
        if (kind !== 'refused') return undefined;
        const http = `HTTP ${answer.status}${answer.code ? ` ${answer.code}` : ''}`;
        throw new RemoteError('REMOTE_READ_REFUSED', `the service refused a read: ${subject}: ${http}`);
      },
    });
  }

  /**
   * A paged list (users, groups, members), page after page from 1. The last page is the one whose
   * `current_page` reaches `total_pages`, or one shorter than asked: `total` is 0 in the vendor's examples.
   */
  async *pages(path: string, query: Record<string, string | number> = {}): AsyncIterable<Obj[]> {
    for (let page = 1; ; page++) {
      const answer = await this.get(path, { ...query, perPage: READ_PAGE_SIZE, page });
      const items = itemsOf(answer);
      if (items.length > 0) yield items;
      const pagination = isObj(answer?.meta) && isObj(answer.meta.pagination) ? answer.meta.pagination : {};
      const current = Number(pagination.current_page);
      const last = Number(pagination.total_pages);
      if (items.length < READ_PAGE_SIZE) return;
      if (Number.isFinite(current) && Number.isFinite(last) && current >= last) return;
    }
  }

  /**
   * A cursor list (messages): each next page asked with `id` + `affix=append` from `meta.next`, since
   * paging by whole-second `sentAt` can skip or repeat messages of one second. Ids seen on the page
   * before are dropped (a page may start with the cursor's own message); the walk ends without a
   * `meta.next`, on a short page, or when the cursor stops moving.
   */
  async *cursor(path: string, query: Record<string, string | number> = {}): AsyncIterable<Obj[]> {
    let after: string | undefined;
    let seen = new Set<string>();
    for (;;) {
      const cursor: Record<string, string> = after === undefined ? {} : { id: after, affix: 'append' };
      const answer = await this.get(path, { ...query, limit: READ_PAGE_SIZE, ...cursor });
      const items = itemsOf(answer);
      const fresh = items.filter((m) => !seen.has(String(m.id)));
      if (fresh.length > 0) yield fresh;
      seen = new Set(items.map((m) => String(m.id)));
      const next = isObj(answer?.meta) && isObj(answer.meta.next) ? answer.meta.next : undefined;
      const nextId = next?.id === undefined || next.id === null ? undefined : String(next.id);
      const lastId = items.length > 0 ? String(items[items.length - 1].id) : undefined;
      if (items.length < READ_PAGE_SIZE) return;
      const moveTo = nextId ?? lastId;
      if (next === undefined || moveTo === undefined || moveTo === after) return;
      after = moveTo;
    }
  }

  /** Deletes `path` (`users/u1`, `groups/g1/members/u1`, `messages/1029`), read-api.md "Deleting". */
  delete(path: string, body?: object): Promise<DeleteResult> {
    const target = this.at.prefix + path.split('/').map(encodeURIComponent).join('/');
    const json = body === undefined ? undefined : JSON.stringify(body);
    return retryingRequest<ServiceAnswer, DeleteResult>(this.loop, {
      subject: `DELETE ${path}`,
      route: this.at.route,
      timeoutMs: this.at.timeoutMs,
      send: (signal) => sendToService(this.at, { method: 'DELETE', path: target, body: json }, signal),
      judge: (answer, kind) => {
        const { status, code } = answer;
        if (kind === 'ok') return { done: { outcome: 'deleted' } };
        if ((code !== undefined && NOT_FOUND_CODES.includes(code)) || (status === 404 && code === undefined)) {
          return { done: { outcome: 'not-found' } };
        }
        if (kind === 'refused') return { done: { outcome: 'refused', code: code ?? `HTTP_${status}`, status } };
        return undefined;
      },
    });
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.at.dispatcher.close();
  }

  /** Drops connections at once (Ctrl+C). */
  async destroy(): Promise<void> {
    this.closing.abort();
    await this.at.dispatcher.destroy();
  }
}

function parseAnswer(text: string, path: string): Obj {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isObj(parsed)) return parsed;
  } catch {
    // Said below, with the path.
  }
  throw new RemoteError('REMOTE_BAD_ANSWER', `GET /${path}: the answer is not a JSON object`);
}

/** `data` as a list; a single object (a get by id) is a list of one. */
function itemsOf(answer: Obj | undefined): Obj[] {
  const data = answer?.data;
  if (Array.isArray(data)) return data.filter(isObj);
  return isObj(data) ? [data] : [];
}
