/**
 * The one try loop of every request the tool makes: import batches (send-batch.ts), reads and deletes
 * (rest-client.ts) and media downloads (media/download.ts). It waits for the limiter, sends, tells the
 * limiter what every answer said, asks the retry policy (retry-policy.ts, data) what a failure means,
 * and backs off. What an answer means is the caller's: a batch's per-record results, a read's JSON, a
 * delete's not-found, a file. The ends are the same for every caller: an untrusted certificate or a
 * refusing proxy, a refused key, a host that does not resolve stop at once; a budget spent gives up.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { errors as undiciErrors } from 'undici';
import { InterruptedError, MigrationError, RemoteError } from '../errors.js';
import type { KeyCheck } from './key-check.js';
import type { Clock } from '../clock.js';
import { type RateLimiter, rateSignalsOf } from './rate-limiter.js';
import {
  backoffDelay,
  classifyStatus,
  classifyTransport,
  type FailedAnswer,
  type RetryPolicy,
} from './retry-policy.js';
import type { ServiceEndpoint } from './service-endpoint.js';
import { fatalTransportError, TransportError, transportErrorOf, type TransportRoute } from './transport-errors.js';

/** A retry about to wait: its number from 1, the most allowed, the wait, and what failed, short. */
export interface RetryNotice {
  attempt: number;
  of: number;
  delayMs: number;
  reason: string;
}

/** What a caller may count: each request as it starts, each answer with its latency, each retry. */
export interface RequestEvents {
  requestStarted?(isRetry: boolean): void;
  answered?(status: number, latencyMs: number): void;
  retrying?(notice: RetryNotice): void;
}

/** What the tries of one kind of request share; a client builds it once. */
export interface TryLoop {
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  /** Aborts the request under way and every wait: the loop then throws InterruptedError. */
  stop: AbortSignal;
  /** The run failed elsewhere: no further try and no further wait (a request on the wire still finishes). */
  abandon?: AbortSignal;
  random?: () => number;
  events?: RequestEvents;
  /** What a run that gives up keeps, for the hint (`the checkpoint is saved`). */
  saved?: string;
  /** The run's requests to the service with its key: one at a time until the first answer (key-check.ts). */
  keyCheck?: KeyCheck;
}

/** An HTTP answer; `code` is the service's error code when its body named one. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  code?: string;
}

/**
 * The caller's reading of an answer: `done` ends the loop with a value; `retry` tries again (what
 * failed, in words; `reason`, short, for the notice); undefined leaves it to the policy: a refused key
 * stops the run, rate-limited and server errors are tried again, any other refusal stops the run.
 */
export type Verdict<T> = { done: T } | { retry: string; reason?: string } | undefined;

/** The answer's kind: `ok` for 2xx, else the policy's name for the failure. */
export type AnswerKind = 'ok' | FailedAnswer;

export interface OneRequest<A extends Answer, T> {
  /** Names the request in errors: `users`, `GET /users`, `DELETE users/u1`, `download`. */
  subject: string;
  /** Where it goes, for the errors of TLS, proxies and names that do not resolve. */
  route: TransportRoute;
  /** For the words of a timeout. */
  timeoutMs?: number;
  /** One try; throws when no answer came. A MigrationError it throws ends the loop as it is. */
  send(signal: AbortSignal): Promise<A>;
  judge(answer: A, kind: AnswerKind): Verdict<T> | Promise<Verdict<T>>;
  /** The first try already repeats an earlier request (a half of a split batch). */
  resent?: boolean;
  /** What to check when the host does not resolve; default: the service's address. */
  unresolvedHint?: string;
}

const SERVICE_HOST_HINT = 'check appId and region (baseUrl)';

/** Sends `request` until its caller's verdict is done, trying again as the policy says. */
export async function retryingRequest<A extends Answer, T>(loop: TryLoop, request: OneRequest<A, T>): Promise<T> {
  const { stop } = loop;
  let attempt = 0;
  let isRetry = request.resent ?? false;
  for (;;) {
    if (isRetry && loop.abandon?.aborted) throw new InterruptedError();
    const trying = (await loop.keyCheck?.enter(stop)) ?? false;
    // Waiting for the key's first answer, the run may have failed elsewhere: no request is wanted then.
    if (loop.abandon?.aborted) {
      if (trying) loop.keyCheck?.done({ answered: false });
      throw new InterruptedError();
    }
    const seen = { answered: false };
    const tried: TryEnd<T> = await oneTry(loop, request, isRetry, seen).catch((err: unknown) => {
      // Unanswered, a RemoteError is about the host (its name, its certificate): every request would meet it.
      const refused = !seen.answered && err instanceof RemoteError ? err : undefined;
      if (trying) loop.keyCheck?.done({ answered: seen.answered, refused });
      throw err;
    });
    if (trying) loop.keyCheck?.done({ answered: tried.answered, refused: tried.refused });
    if (tried.refused) throw tried.refused;
    if ('done' in tried) return tried.done;
    isRetry = true;
    attempt = await backoff(loop, request.subject, attempt, tried.serverAskedMs, tried.what, tried.reason);
  }
}

/** How one try ended: the caller's value, or a refused key, or what to say before the next try. */
type TryEnd<T> = { answered: boolean; refused?: RemoteError } & (
  | { done: T }
  | { what: string; reason: string; serverAskedMs: number }
);

/** One try: waits for the limiter, sends, and reads the answer with the caller's judge and the policy. */
async function oneTry<A extends Answer, T>(
  loop: TryLoop,
  request: OneRequest<A, T>,
  isRetry: boolean,
  seen: { answered: boolean },
): Promise<TryEnd<T>> {
  const { limiter, policy, stop, events } = loop;
  await limiter.acquire(stop);
  if (stop.aborted) throw new InterruptedError();
  events?.requestStarted?.(isRetry);
  const sentAt = performance.now();
  let answer: A;
  try {
    answer = await request.send(stop);
  } catch (err) {
    if (stop.aborted) throw new InterruptedError();
    if (err instanceof MigrationError) throw err;
    const failure = noAnswer(policy, err, request);
    return { answered: false, what: failure.message, reason: failure.reason, serverAskedMs: 0 };
  }
  seen.answered = true;
  const signals = rateSignalsOf(answer.status, answer.headers);
  limiter.observe(signals);
  events?.answered?.(answer.status, performance.now() - sentAt);
  const { status, code } = answer;
  const kind: AnswerKind = status >= 200 && status < 300 ? 'ok' : classifyStatus(policy, status);
  const verdict = await request.judge(answer, kind);
  if (verdict !== undefined && 'done' in verdict) return { answered: true, done: verdict.done };
  const http = `HTTP ${status}${code ? ` ${code}` : ''}`;
  if (verdict === undefined && kind === 'auth') {
    const refused = new RemoteError(
      'REMOTE_AUTH',
      `the service refused the API key (${status}${code ? ` ${code}` : ''})`,
      { hint: 'check apiKey, appId and region' },
    );
    return { answered: true, refused, what: http, reason: http, serverAskedMs: 0 };
  }
  if (verdict === undefined && (kind === 'refused' || kind === 'ok')) {
    throw new RemoteError('REMOTE_REFUSED', `${request.subject}: the service refused the request (${http})`);
  }
  const limited = kind === 'rate-limited';
  const what = verdict?.retry ?? (limited ? `rate limited (${status})` : http);
  const reason = verdict?.reason ?? (limited ? `HTTP ${status} (rate limited)` : what);
  return { answered: true, what, reason, serverAskedMs: signals.retryAfterMs ?? 0 };
}

/** A failure with no answer that may pass; throws the ones that cannot. */
function noAnswer(policy: RetryPolicy, err: unknown, request: OneRequest<Answer, unknown>): TransportError {
  const failure = transportErrorIn(err, request.route, request.timeoutMs);
  const route = failure.route ?? request.route;
  const kind = classifyTransport(policy, failure.failure);
  if (kind === 'fatal') throw fatalTransportError(failure.failure, route);
  // Through a proxy, the name that did not resolve is the proxy's, and the message already says so.
  if (kind === 'unresolved' && !route.proxy) {
    throw new RemoteError(
      'REMOTE_HOST_NOT_FOUND',
      `${failure.message}: ${request.unresolvedHint ?? SERVICE_HOST_HINT}`,
    );
  }
  return failure;
}

/** The error of a try that got no answer, in words: a timeout, or what the socket or TLS said. */
export function transportErrorIn(err: unknown, route: TransportRoute, timeoutMs?: number): TransportError {
  if (err instanceof TransportError) return err;
  const seconds = timeoutMs === undefined ? 'the timeout' : `${timeoutMs / 1000} s`;
  if (err instanceof undiciErrors.HeadersTimeoutError) {
    const message = `no answer from ${route.host} within ${seconds} (timeoutMs)`;
    return new TransportError('timeout', message, `no answer in ${seconds}`);
  }
  if (err instanceof undiciErrors.BodyTimeoutError) {
    const message = `the answer from ${route.host} stalled for ${seconds} (timeoutMs)`;
    return new TransportError('timeout', message, `answer stalled ${seconds}`);
  }
  return transportErrorOf(err, route.host, route);
}

/** Waits before the next try, or gives up: `what` says what failed in words, `reason` is the notice's. */
async function backoff(
  loop: TryLoop,
  subject: string,
  attempt: number,
  serverAskedMs: number,
  what: string,
  reason: string,
): Promise<number> {
  const { policy, clock, stop, abandon } = loop;
  // The run ended elsewhere: a failure now is no news, and no retry is wanted.
  if (abandon?.aborted) throw new InterruptedError();
  if (attempt >= policy.retries) {
    const tries = `${policy.retries} ${policy.retries === 1 ? 'retry' : 'retries'}`;
    const again = loop.saved ? `${loop.saved}; run the same command again to resume` : 'run the same command again';
    throw new RemoteError('REMOTE_RETRIES_EXHAUSTED', `${subject}: ${what}; gave up after ${tries}`, {
      hint: `${again} (raise "retries" for a flaky network)`,
    });
  }
  const delayMs = backoffDelay(policy, attempt, serverAskedMs, loop.random);
  loop.events?.retrying?.({ attempt: attempt + 1, of: policy.retries, delayMs, reason });
  await clock.sleep(delayMs, abandon ? AbortSignal.any([stop, abandon]) : stop);
  if (stop.aborted || abandon?.aborted) throw new InterruptedError();
  return attempt + 1;
}

/** One request to the service, its whole answer read. */
export interface ServiceAnswer extends Answer {
  text: string;
}

/** Sends one request to the service through its endpoint's dispatcher and reads the whole answer. */
export async function sendToService(
  at: ServiceEndpoint,
  request: {
    method: 'GET' | 'POST' | 'DELETE';
    path: string;
    body?: string | Buffer;
    headers?: Record<string, string>;
  },
  signal?: AbortSignal,
): Promise<ServiceAnswer> {
  const res = await at.dispatcher.request({
    origin: at.origin,
    path: request.path,
    method: request.method,
    headers: request.headers ? { ...at.headers, ...request.headers } : at.headers,
    body: request.body,
    signal,
  });
  const text = await res.body.text();
  const status = res.statusCode;
  return { status, headers: res.headers, text, code: status === 200 ? undefined : errorCodeOf(text) };
}

/** The code of a service error answer (`{"error": {"code": ...}}`), when it is one. */
export function errorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
