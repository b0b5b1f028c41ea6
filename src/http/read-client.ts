import { errors as undiciErrors } from 'undici';
import { InterruptedError, RemoteError } from '../errors.js';
import { type EndpointOptions, openEndpoint, type ServiceEndpoint } from './service-endpoint.js';
import { rateSignalsOf, transportErrorOf, TransportError } from './import-client.js';
import type { Clock, RateLimiter } from './rate-limiter.js';
import { backoffDelay, classifyStatus, classifyTransport, type RetryPolicy } from './retry-policy.js';
import { fatalTransportError } from './transport-errors.js';

/** The most a list endpoint gives per page (`perPage`, `limit`: docs/verify.md). */
export const READ_PAGE_SIZE = 1000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ReadClientOptions extends EndpointOptions {
  /** The reads' own limiter: reads share the app's standard budget, imports have theirs. */
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  /** Aborts requests under way and every wait (Ctrl+C). */
  stop: AbortSignal;
  events?: ReadEvents;
}

export interface ReadEvents {
  requestStarted(isRetry: boolean): void;
  retrying(notice: { attempt: number; of: number; delayMs: number; reason: string }): void;
}

/**
 * GETs of the service's REST API (docs/verify.md), through the run's one dispatcher kind, its retry
 * policy and a rate limiter of their own. A GET is safe to repeat, so every retryable failure is
 * tried again; pages are walked the way docs/verify.md says, to cope with what the vendor leaves unclear.
 */
export class ReadClient {
  private readonly at: ServiceEndpoint;

  constructor(private readonly options: ReadClientOptions) {
    this.at = openEndpoint(options);
  }

  /**
   * One GET of `path` (after the version segment); the parsed answer, or undefined when the service
   * answers with one of `notFound` (an unknown id).
   */
  async get(
    path: string,
    query: Record<string, string | number> = {},
    notFound: readonly string[] = [],
    headers: Record<string, string> = {},
  ): Promise<Obj | undefined> {
    const { limiter, policy, stop, events } = this.options;
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    const target = `${this.at.prefix}${path}${search ? `?${search}` : ''}`;
    for (let attempt = 0; ; attempt++) {
      await limiter.acquire(stop);
      if (stop.aborted) throw new InterruptedError();
      events?.requestStarted(attempt > 0);
      let status: number;
      let text: string;
      try {
        const res = await this.at.dispatcher.request({
          origin: this.at.origin,
          path: target,
          method: 'GET',
          headers: { ...this.at.headers, ...headers },
          signal: stop,
        });
        text = await res.body.text();
        status = res.statusCode;
        const rate = rateSignalsOf(status, res.headers);
        limiter.observe(rate);
        if (status === 200) return parseAnswer(text, path);
        const code = errorCodeOf(text);
        if (code !== undefined && notFound.includes(code)) return undefined;
        const kind = classifyStatus(policy, status);
        const what = `GET /${path}: HTTP ${status}${code ? ` ${code}` : ''}`;
        if (kind === 'auth') {
          throw new RemoteError('REMOTE_AUTH', `the service refused the API key (${status} ${code ?? ''})`.trim(), {
            hint: 'verify reads with the same full-access REST key as the import: check apiKey, appId and region',
          });
        }
        if (kind === 'refused') throw new RemoteError('REMOTE_READ_REFUSED', `the service refused a read: ${what}`);
        await this.pause(attempt, rate.retryAfterMs, what);
      } catch (err) {
        if (stop.aborted) throw new InterruptedError();
        if (err instanceof RemoteError || err instanceof InterruptedError) throw err;
        const failure = this.transportFailureOf(err);
        if (classifyTransport(policy, failure.failure) === 'fatal') {
          throw fatalTransportError(failure.failure, failure.route ?? this.at.route);
        }
        await this.pause(attempt, 0, failure.message, failure.reason);
      }
    }
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

  private transportFailureOf(err: unknown): TransportError {
    const host = this.at.route.host;
    const seconds = `${this.options.timeoutMs / 1000} s`;
    if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
      return new TransportError(
        'timeout',
        `no answer from ${host} within ${seconds} (timeoutMs)`,
        `timeout ${seconds}`,
      );
    }
    if (err instanceof TransportError) return err;
    return transportErrorOf(err, host, this.at.route);
  }

  private async pause(attempt: number, askedMs: number | undefined, what: string, reason = what): Promise<void> {
    const { policy, clock, stop, events } = this.options;
    if (attempt >= policy.retries) {
      const tries = `${policy.retries} ${policy.retries === 1 ? 'retry' : 'retries'}`;
      throw new RemoteError('REMOTE_RETRIES_EXHAUSTED', `${what}; gave up after ${tries}`, {
        hint: 'run verify again later (raise "retries" for a flaky network)',
      });
    }
    const delayMs = backoffDelay(policy, attempt, askedMs ?? 0);
    events?.retrying({ attempt: attempt + 1, of: policy.retries, delayMs, reason });
    await clock.sleep(delayMs, stop);
    if (stop.aborted) throw new InterruptedError();
  }

  async close(): Promise<void> {
    await this.at.dispatcher.close();
  }

  async destroy(): Promise<void> {
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

function errorCodeOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed?.error?.code === 'string' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}
