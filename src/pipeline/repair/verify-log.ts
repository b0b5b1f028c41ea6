import type { MigrateConfig } from '../../config/schema.js';
import { openRunLog, type RunLog } from '../run-log.js';
import type { VerifyResult } from '../verify/verify-result.js';

/**
 * Runs a verify (or a repair) with its lines in the migration's run log: its start, a stop asked
 * for, and at the end the figures per entity (not the lists), which the report's verify table shows.
 */
export async function withVerifyLog(
  config: MigrateConfig,
  repair: boolean,
  stop: AbortSignal,
  warn: (problem: string) => void,
  run: () => Promise<VerifyResult>,
): Promise<VerifyResult> {
  const runLog = await openRunLog(config.checkpoint, { command: repair ? 'verify --repair' : 'verify', config });
  if (runLog.problem) warn(runLog.problem);
  const onStop = () => runLog.interrupted(String(stop.reason ?? 'stop'));
  stop.addEventListener('abort', onStop, { once: true });
  let result: VerifyResult | undefined;
  try {
    result = await run();
    return result;
  } finally {
    stop.removeEventListener('abort', onStop);
    endRunLog(runLog, result);
  }
}

/** A run that threw (the CLI reports why) ends as failed. */
function endRunLog(runLog: RunLog, result: VerifyResult | undefined): void {
  if (!result) {
    runLog.end('failed');
    return;
  }
  const entities: Record<string, Record<string, number>> = {};
  for (const [entity, v] of Object.entries(result.entities)) {
    const { expected, present, missing, different, extra, beyondRetention } = v;
    entities[entity] = { expected, present, missing, different, extra, beyondRetention };
  }
  runLog.event('verify-end', { entities, requests: result.requests, repair: result.repair });
  runLog.end(result.ok ? 'completed' : 'completed-with-differences', { exitCode: result.ok ? 0 : 3 });
}
