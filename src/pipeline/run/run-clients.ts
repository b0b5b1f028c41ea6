import type { MigrateConfig } from '../../config/schema.js';
import { DeleteClient } from '../../http/delete-client.js';
import { ImportClient } from '../../http/import-client.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import { RateLimiter, systemClock, type Clock } from '../../http/rate-limiter.js';
import { ReadClient, type ReadEvents } from '../../http/read-client.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../http/retry-policy.js';
import { endpointOptionsOf } from '../../http/service-endpoint.js';
import type { StopSignals } from './signals.js';

/** Reads and deletes start here when `restRequestsPerMinute` is 'auto', until the rate headers say. */
const REST_AUTO_START = 600;

/**
 * The clients of a run, made when first asked for and closed at its end: the import's (its limiter
 * at `requestsPerMinute`) and the REST API's for reads and deletes (one limiter, the service's
 * standard-operations budget). One retry policy for all.
 */
export class RunClients {
  readonly policy: RetryPolicy;
  readonly clock: Clock = systemClock;
  private importLimiterMade?: RateLimiter;
  private restLimiterMade?: RateLimiter;
  private readonly closers: Array<{ close(): Promise<void>; destroy?(): Promise<void> }> = [];

  constructor(
    private readonly config: MigrateConfig,
    private readonly signals: Pick<StopSignals, 'stop' | 'hardStop'>,
    private readonly proxy?: ProxySettings,
  ) {
    this.policy = { ...DEFAULT_RETRY_POLICY, retries: config.retries };
  }

  get importLimiter(): RateLimiter {
    return (this.importLimiterMade ??= new RateLimiter(this.config.requestsPerMinute, this.clock));
  }

  get restLimiter(): RateLimiter {
    return (this.restLimiterMade ??= new RateLimiter(this.config.readRequestsPerMinute, this.clock, REST_AUTO_START));
  }

  /** A client of the import endpoints. */
  importClient(): ImportClient {
    return this.keep(new ImportClient(endpointOptionsOf(this.config, this.proxy)));
  }

  /** A client of the REST reads; `stop` ends them (a read is safe to cut short). */
  readClient(events: ReadEvents, stop: AbortSignal = this.signals.stop): ReadClient {
    return this.keep(
      new ReadClient({
        ...endpointOptionsOf(this.config, this.proxy),
        // Pages are read one after another: a cursor cannot be read ahead of its last answer.
        connections: 2,
        limiter: this.restLimiter,
        policy: this.policy,
        clock: this.clock,
        stop,
        events,
      }),
    );
  }

  /** A client of the REST deletes. */
  deleteClient(onRetry?: (reason: string, attempt: number, delayMs: number) => void): DeleteClient {
    return this.keep(
      new DeleteClient({
        ...endpointOptionsOf(this.config, this.proxy),
        limiter: this.restLimiter,
        policy: this.policy,
        clock: this.clock,
        hardStop: this.signals.hardStop,
        onRetry,
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
