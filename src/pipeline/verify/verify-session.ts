import { idLogPathOf } from '../../checkpoint/state-files.js';
import type { MigrateConfig } from '../../config/schema.js';
import type { EntityName, MappedRecord } from '../../entities/types.js';
import type { ProxySettings } from '../../http/proxy-env.js';
import { RateLimiter, systemClock } from '../../http/rate-limiter.js';
import { RestClient } from '../../http/rest-client.js';
import { DEFAULT_RETRY_POLICY } from '../../http/retry-policy.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { RunEvents } from '../events.js';
import { readServiceIds } from './service-id-table.js';
import { runVerify } from './run-verify.js';
import type { VerifyResult } from './verify-result.js';
import { endpointOptionsOf } from '../../http/service-endpoint.js';
import { DEFAULT_REST_REQUESTS_PER_MINUTE } from '../../config/keys.js';

export interface VerifySessionOptions {
  config: MigrateConfig;
  plans: EntityPlan[];
  entities?: ReadonlySet<EntityName>;
  sample: number;
  sinceSec?: number;
  events: RunEvents;
  /** Soft stop: a verify only reads, so the first Ctrl+C ends the reads under way too. */
  stop: AbortSignal;
  onMissing?(record: MappedRecord): Promise<void>;
  proxy?: ProxySettings;
}

/**
 * One `verify`: a read client of its own (its limiter at `restRequestsPerMinute`, adapted from the
 * rate headers and 429s as the import's is; the run's one retry policy), the comparison, and the
 * client closed whatever happens.
 */
export async function runVerifySession(options: VerifySessionOptions): Promise<VerifyResult> {
  const { config } = options;
  const counts = { requests: 0, retries: 0 };
  // Retries are shown under the phase reading the service at the time.
  let current: EntityName = 'users';
  const shown = options.events;
  // Methods named one by one: a reporter is a class, whose methods a spread would not copy.
  const events: RunEvents = {
    phaseStarted: (entity, expected) => {
      current = entity;
      shown.phaseStarted(entity, expected);
    },
    progress: (entity, c) => shown.progress(entity, c),
    phaseFinished: (entity, c, completed) => shown.phaseFinished(entity, c, completed),
    retrying: (entity, notice) => shown.retrying(entity, notice),
    warning: (message) => shown.warning(message),
    info: (message) => shown.info(message),
  };
  const client = new RestClient({
    ...endpointOptionsOf(config),
    // Pages are read one after another: a cursor cannot be read ahead of its last answer.
    connections: 2,
    limiter: new RateLimiter(config.restRequestsPerMinute, systemClock, DEFAULT_REST_REQUESTS_PER_MINUTE),
    policy: { ...DEFAULT_RETRY_POLICY, retries: config.retries },
    clock: systemClock,
    stop: options.stop,
    proxy: options.proxy,
    events: {
      requestStarted: (isRetry) => {
        counts.requests++;
        if (isRetry) counts.retries++;
      },
      retrying: (notice) => options.events.retrying(current, notice),
    },
  });
  try {
    return await runVerify({
      plans: options.plans,
      client,
      entities: options.entities,
      nowSec: Math.floor(Date.now() / 1000),
      importSoftDeleted: config.importSoftDeleted,
      sinceSec: options.sinceSec,
      retentionDays: config.retentionDays,
      sample: options.sample,
      // Where the import kept the service's message ids: beside its checkpoint.
      loadIdLog: (messages) => readServiceIds(idLogPathOf(config.checkpoint), messages),
      events,
      signal: options.stop,
      requests: () => counts,
      onMissing: options.onMissing,
    });
  } finally {
    if (options.stop.aborted) await client.destroy().catch(() => undefined);
    else await client.close().catch(() => undefined);
  }
}
