import type { EntityName } from '../../entities/types.js';
import type { EntityPlan } from '../../sources/plan.js';
import { BatchSender } from '../import/send-batch.js';
import { logVerifyEnd, recordVerdict, verifyInRun } from '../verify/verify-in-run.js';
import type { RepairOutcome, VerifyResult } from '../verify/verify-result.js';
import { RepairSender } from './repair-sender.js';
import { IdLog } from '../../checkpoint/id-log.js';
import { idLogLine } from '../import/phase-tally.js';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import type { Run, RunEnd } from '../run/run.js';

export interface VerifyRunOptions {
  plans: EntityPlan[];
  entities?: ReadonlySet<EntityName>;
  sample: number;
  sinceSec?: number;
  repair: boolean;
}

/**
 * `verify`, and with `repair` the records it finds missing sent again as the import sends them (same
 * mapping and checks: they are the import's records, read again), then verified again: what the
 * second verification still finds missing is the answer. The verdict goes into the ledger when it
 * covers the whole export (no --entities, no --sample).
 */
export async function verifyOrRepair(run: Run, options: VerifyRunOptions): Promise<VerifyResult> {
  const result = options.repair ? await verifyThenRepair(run, options) : await verifyInRun(run, options);
  const whole = options.entities === undefined && options.sample === 0;
  if (whole) recordVerdict(run, result);
  return result;
}

/** The run log's last lines of a verify: the figures per entity (not the lists), which the report shows. */
export function verifyEnd(result: VerifyResult, run: Run): RunEnd {
  logVerifyEnd(run, result);
  return { status: result.ok ? 'completed' : 'completed-with-differences', fields: { exitCode: result.ok ? 0 : 3 } };
}

async function verifyThenRepair(run: Run, options: VerifyRunOptions): Promise<VerifyResult> {
  const { config } = run;
  const requests = run.requests('repair');
  const failed = new AbortController();
  const sender = new BatchSender({
    client: await run.clients.importClient(),
    limiter: run.clients.importLimiter,
    policy: run.clients.policy,
    clock: run.clients.clock,
    hardStop: run.hardStop,
    abandon: failed.signal,
    events: {
      requestStarted: (_entity, isRetry) => {
        requests.requestStarted(isRetry);
        outcome.requests++;
      },
      // Called, not passed: a reporter's method taken off it loses its `this` (`this.now is not a function`).
      retrying: (entity, notice) => run.events.retrying(entity, notice),
      answered: (_entity, status, latencyMs) => requests.answered(status, latencyMs),
    },
  });
  const outcome: RepairOutcome = { sent: {}, imported: 0, alreadyPresent: 0, rejected: [], requests: 0 };
  let idLog: IdLog | undefined;
  let first: VerifyResult;
  try {
    // What the repair stores is logged as the import logs it: a later verify without muids finds it.
    idLog = await IdLog.open(idLogPathOf(config.checkpoint));
    const log = idLog;
    const repairs = new RepairSender(sender, config.batchSize, config.concurrency, outcome, (accepted) => {
      log.write(accepted.map(idLogLine));
      for (const a of accepted) {
        const totals = run.ledger?.totals(a.record.entity);
        if (totals && a.created) totals.repaired = (totals.repaired ?? 0) + 1;
      }
    });
    first = await verifyInRun(run, {
      ...options,
      onMissing: (record) => {
        // The service is about to change: the verdict recorded is the second reading's.
        run.ledger?.markChanged();
        return repairs.offer(record);
      },
    });
    await repairs.finish();
  } catch (err) {
    failed.abort();
    throw err;
  } finally {
    await idLog?.close().catch(() => undefined);
  }
  const repaired = new Set(Object.keys(outcome.sent) as EntityName[]);
  if (repaired.size === 0) return { ...first, repair: outcome };
  const sent = Object.values(outcome.sent).reduce((n, k) => n + (k ?? 0), 0);
  run.events.info(`sent ${sent} missing records again; verifying them once more ...`);
  const second = await verifyInRun(run, { ...options, entities: repaired });
  // The entities not repaired keep the first verification's findings (their differences included).
  const entities = { ...first.entities, ...second.entities };
  const ok = Object.values(entities).every((v) => v.missing + v.different === 0);
  const requestCount = first.requests + second.requests;
  const retries = first.retries + second.retries;
  const elapsedMs = first.elapsedMs + second.elapsedMs;
  return { ...second, entities, ok, requests: requestCount, retries, elapsedMs, repair: outcome };
}
