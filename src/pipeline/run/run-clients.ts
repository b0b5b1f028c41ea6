import type { MigrateConfig } from '../../config/schema.js';
import type { ImportClient } from '../../http/import-client.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import { type Clock, systemClock } from '../../clock.js';
import { RateLimiter } from '../../http/rate-limiter.js';
import type { RestClient } from '../../http/rest-client.js';
import type { SourceClient, SourceClientOptions } from '../../http/source-client.js';
import type { RequestEvents } from '../../http/retrying-request.js';
import { DEFAULT_REST_REQUESTS_PER_MINUTE } from '../../config/keys.js';
import { KeyCheck } from '../../http/key-check.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../http/retry-policy.js';
import type { StopSignals } from './signals.js';

/**
 * The clients of a run, made when first asked for and closed at its end: the import's (its limiter
 * at `requestsPerMinute`) and the REST API's for reads and deletes (one limiter, the service's
 * standard-operations budget). One retry policy for all. The HTTP stack (undici) loads only when a
 * client is asked for: validate, which sends nothing, starts without it.
 */
export class RunClients {
  readonly policy: RetryPolicy;
  /** One for all the run's clients: they send the same key, whose first refusal stops them all. */
  readonly keyCheck = new KeyCheck();
  private importLimiterMade?: RateLimiter;
  private restLimiterMade?: RateLimiter;
  private readonly closers: Array<{ close(): Promise<void>; destroy?(): Promise<void> }> = [];

  constructor(
    private readonly config: MigrateConfig,
    private readonly signals: Pick<StopSignals, 'stop' | 'hardStop'>,
    private readonly proxy?: ProxySettings,
    /** Every limiter's and retry's time: the run's clock. */
    readonly clock: Clock = systemClock,
  ) {
    this.policy = { ...DEFAULT_RETRY_POLICY, retries: config.retries };
  }

  get importLimiter(): RateLimiter {
    return (this.importLimiterMade ??= new RateLimiter(this.config.requestsPerMinute, this.clock));
  }

  get restLimiter(): RateLimiter {
    const { restRequestsPerMinute } = this.config;
    return (this.restLimiterMade ??= new RateLimiter(
      restRequestsPerMinute,
      this.clock,
      DEFAULT_REST_REQUESTS_PER_MINUTE,
    ));
  }

  /**
   * A client of a live source's API (pull), with a limiter of its own at the source's budget, the run's
   * retry policy and its soft stop. Closed at the run's end, or earlier by `release` (a sync round).
   */
  async sourceClient(
    options: Omit<SourceClientOptions, 'limiter' | 'policy' | 'clock' | 'stop' | 'timeoutMs' | 'proxy'> & {
      requestsPerMinute: number | 'auto';
    },
  ): Promise<SourceClient> {
    const { SourceClient } = await import('../../http/source-client.js');
    const { requestsPerMinute, ...rest } = options;
    const limiter = new RateLimiter(requestsPerMinute, this.clock);
    const { policy, clock, config, proxy } = this;
    const stop = this.signals.stop;
    return this.keep(new SourceClient({ ...rest, limiter, policy, clock, stop, timeoutMs: config.timeoutMs, proxy }));
  }

  /** Closes a client before the run's end (dropping its connections after a hard stop). */
  async release(client: { close(): Promise<void>; destroy?(): Promise<void> }): Promise<void> {
    const at = this.closers.indexOf(client);
    if (at >= 0) this.closers.splice(at, 1);
    await (this.signals.hardStop.aborted && client.destroy ? client.destroy() : client.close()).catch(() => undefined);
  }

  /** A client of the import endpoints. */
  async importClient(): Promise<ImportClient> {
    const [{ ImportClient }, { endpointOptionsOf }] = await Promise.all([
      import('../../http/import-client.js'),
      import('../../http/service-endpoint.js'),
    ]);
    return this.keep(new ImportClient({ ...endpointOptionsOf(this.config, this.proxy), keyCheck: this.keyCheck }));
  }

  /**
   * A client of the service's REST API (reads and deletes), on the run's one REST limiter. `stop`
   * ends its requests under way: the soft stop for reads (safe to cut short), the hard one for deletes.
   */
  async restClient(options: { events?: RequestEvents; stop?: AbortSignal; saved?: string } = {}): Promise<RestClient> {
    const [{ RestClient }, { endpointOptionsOf }] = await Promise.all([
      import('../../http/rest-client.js'),
      import('../../http/service-endpoint.js'),
    ]);
    return this.keep(
      new RestClient({
        ...endpointOptionsOf(this.config, this.proxy),
        // Pages are read one after another, deletes a few at a time: a small pool is enough.
        connections: Math.min(this.config.concurrency, 4),
        limiter: this.restLimiter,
        policy: this.policy,
        clock: this.clock,
        stop: options.stop ?? this.signals.stop,
        events: options.events,
        saved: options.saved,
        keyCheck: this.keyCheck,
      }),
    );
  }

  /** Closes every client; a run stopped hard drops its connections at once. */
  async close(): Promise<void> {
    const hard = this.signals.hardStop.aborted;
    for (const c of this.closers.splice(0)) {
      await (hard && c.destroy ? c.destroy() : c.close()).catch(() => undefined);
    }
  }

  private keep<C extends { close(): Promise<void> }>(client: C): C {
    this.closers.push(client);
    return client;
  }
}
