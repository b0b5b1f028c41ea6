import type { MigrateConfig } from '../../config/schema.js';
import type { EntityName } from '../../entities/types.js';
import { ImportClient } from '../../http/import-client.js';
import { RateLimiter, systemClock } from '../../http/rate-limiter.js';
import { DEFAULT_RETRY_POLICY } from '../../http/retry-policy.js';
import type { EntityPlan } from '../../sources/plan.js';
import type { RunEvents } from '../events.js';
import { BatchSender } from '../import/send-batch.js';
import { runVerifySession } from '../verify/verify-session.js';
import type { RepairOutcome, VerifyResult } from '../verify/verify-result.js';
import { RepairSender } from './repair-sender.js';
import { CheckpointLock } from '../../checkpoint/lock.js';
import { IdLog } from '../../checkpoint/id-log.js';
import { idLogLine } from '../import/phase-tally.js';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import { endpointOptionsOf } from '../../http/service-endpoint.js';
import { withVerifyLog } from './verify-log.js';
import type { ProxySettings } from '../../http/proxy-env.js';

export interface VerifyRunOptions {
  config: MigrateConfig;
  plans: EntityPlan[];
  entities?: ReadonlySet<EntityName>;
  sample: number;
  sinceSec?: number;
  repair: boolean;
  events: RunEvents;
  stop: AbortSignal;
  hardStop: AbortSignal;
  /** Default: the environment's (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
}

/**
 * `verify`, and with `repair` the records it finds missing sent again as the import sends them (same
 * mapping and checks: they are the import's records, read again), then verified again: what the
 * second verification still finds missing is the answer. Composes the two runs, which never import
 * each other.
 */
export function verifyOrRepair(options: VerifyRunOptions): Promise<VerifyResult> {
  const warn = (problem: string) => options.events.warning(problem);
  return withVerifyLog(options.config, options.repair, options.stop, warn, () => verifyThenRepair(options));
}

async function verifyThenRepair(options: VerifyRunOptions): Promise<VerifyResult> {
  const { config } = options;
  const { plans, sample, sinceSec, proxy } = options;
  const session = { config, plans, sample, sinceSec, proxy };
  if (!options.repair) {
    return runVerifySession({ ...session, entities: options.entities, events: options.events, stop: options.stop });
  }
  // The migration's lock: no import writes the id log while the repair appends to it.
  const lock = new CheckpointLock(`${config.checkpoint}.lock`);
  await lock.acquire();
  const client = new ImportClient(endpointOptionsOf(config, proxy));
  const failed = new AbortController();
  const sender = new BatchSender({
    client,
    limiter: new RateLimiter(config.requestsPerMinute, systemClock),
    policy: { ...DEFAULT_RETRY_POLICY, retries: config.retries },
    clock: systemClock,
    hardStop: options.hardStop,
    abandon: failed.signal,
    events: {
      requestStarted: () => outcome.requests++,
      // Called, not passed: a reporter's method taken off it loses its `this` (`this.now is not a function`).
      retrying: (entity, notice) => options.events.retrying(entity, notice),
    },
  });
  const outcome: RepairOutcome = { sent: {}, imported: 0, alreadyPresent: 0, rejected: [], requests: 0 };
  let idLog: IdLog | undefined;
  let first: VerifyResult;
  try {
    // What the repair stores is logged as the import logs it: a later verify without muids finds it.
    idLog = await IdLog.open(idLogPathOf(config.checkpoint));
    const log = idLog;
    const repairs = new RepairSender(sender, config.batchSize, config.concurrency, outcome, (accepted) =>
      log.write(accepted.map(idLogLine)),
    );
    first = await runVerifySession({
      ...session,
      entities: options.entities,
      events: options.events,
      stop: options.stop,
      onMissing: (record) => repairs.offer(record),
    });
    await repairs.finish();
  } catch (err) {
    failed.abort();
    throw err;
  } finally {
    await client.close().catch(() => undefined);
    await idLog?.close().catch(() => undefined);
    await lock.release();
  }
  const repaired = new Set(Object.keys(outcome.sent) as EntityName[]);
  if (repaired.size === 0) return { ...first, repair: outcome };
  const sent = Object.values(outcome.sent).reduce((n, k) => n + (k ?? 0), 0);
  options.events.info(`sent ${sent} missing records again; verifying them once more ...`);
  const second = await runVerifySession({
    ...session,
    entities: repaired,
    events: options.events,
    stop: options.stop,
  });
  // The entities not repaired keep the first verification's findings (their differences included).
  const entities = { ...first.entities, ...second.entities };
  const ok = Object.values(entities).every((v) => v.missing + v.different === 0);
  const requests = first.requests + second.requests;
  const retries = first.retries + second.retries;
  const elapsedMs = first.elapsedMs + second.elapsedMs;
  return { ...second, entities, ok, requests, retries, elapsedMs, repair: outcome };
}
