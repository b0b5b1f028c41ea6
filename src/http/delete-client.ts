import { InterruptedError, RemoteError } from '../errors.js';
import { type EndpointOptions, openEndpoint, type ServiceEndpoint } from './service-endpoint.js';
import { TransportError, transportErrorOf } from './import-client.js';
import type { Clock, RateLimiter } from './rate-limiter.js';
import { backoffDelay, classifyStatus, classifyTransport, parseRetryAfter, type RetryPolicy } from './retry-policy.js';

export interface DeleteClientOptions extends EndpointOptions {
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  hardStop?: AbortSignal;
  /** A request about to be tried again, for a person watching. */
  onRetry?(reason: string, attempt: number, delayMs: number): void;
}

/** How one delete ended: the record is gone (now, or was already), or the service refused it. */
export type DeleteResult = { outcome: 'deleted' | 'not-found' } | { outcome: 'refused'; code: string; status: number };

const NOT_FOUND_CODES = new Set([
  'ERR_UID_NOT_FOUND',
  'ERR_GUID_NOT_FOUND',
  'ERR_NOT_A_MEMBER',
  'ERR_MESSAGE_ID_NOT_FOUND',
  'ERR_MSG_NOT_FOUND',
]);

/**
 * DELETE requests of read-api.md ("Deleting"), through the run's limiter and the one retry policy:
 * a 429 or 5xx or a lost connection is tried again after a backoff; a record already gone
 * (`*_NOT_FOUND`) counts as deleted, so a resumed undo may ask again safely.
 */
export class DeleteClient {
  private readonly at: ServiceEndpoint;

  constructor(private readonly options: DeleteClientOptions) {
    this.at = openEndpoint(options);
  }

  /** Deletes `path` (`users/u1`, `groups/g1/members/u1`, `messages/1029`), trying again as the policy says. */
  async delete(path: string, body?: object): Promise<DeleteResult> {
    const { limiter, policy, clock, hardStop } = this.options;
    for (let attempt = 0; ; attempt++) {
      await limiter.acquire(hardStop);
      if (hardStop?.aborted) throw new InterruptedError();
      let reason: string;
      let askedMs = 0;
      try {
        const res = await this.at.dispatcher.request({
          origin: this.at.origin,
          path: this.at.prefix + path.split('/').map(encodeURIComponent).join('/'),
          method: 'DELETE',
          headers: this.at.headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: hardStop,
        });
        const text = await res.body.text();
        const status = res.statusCode;
        const retryAfter = parseRetryAfter(res.headers['retry-after'] as string | undefined, Date.now());
        limiter.observe({ status, retryAfterMs: retryAfter });
        if (status >= 200 && status < 300) return { outcome: 'deleted' };
        const code = errorCodeOf(text) ?? `HTTP_${status}`;
        if (NOT_FOUND_CODES.has(code) || (status === 404 && code === `HTTP_${status}`)) return { outcome: 'not-found' };
        const kind = classifyStatus(policy, status);
        if (kind === 'auth') {
          throw new RemoteError('REMOTE_AUTH', `the service refused the API key (${status} ${code}): check apiKey`);
        }
        if (kind === 'refused') return { outcome: 'refused', code, status };
        reason = `HTTP ${status} ${code}`;
        askedMs = retryAfter ?? 0;
      } catch (err) {
        if (err instanceof RemoteError || hardStop?.aborted) throw err;
        const failure = err instanceof TransportError ? err : transportErrorOf(err, this.at.host, this.at.route);
        if (classifyTransport(policy, failure.failure) === 'fatal') {
          throw new RemoteError('REMOTE_UNREACHABLE', failure.message);
        }
        reason = failure.reason;
      }
      if (attempt >= policy.retries) {
        throw new RemoteError(
          'REMOTE_RETRIES_EXHAUSTED',
          `DELETE ${path}: ${reason}; gave up after ${attempt + 1} tries`,
          {
            hint: 'the progress is saved; run the same command again to resume',
          },
        );
      }
      const delayMs = backoffDelay(policy, attempt, askedMs);
      this.options.onRetry?.(reason, attempt + 1, delayMs);
      await clock.sleep(delayMs, hardStop);
    }
  }

  async close(): Promise<void> {
    await this.at.dispatcher.close();
  }
}

function errorCodeOf(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
