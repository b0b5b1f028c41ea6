/**
 * The messages beyond the retention window are checked too: a later run whose window allows them
 * sends them, and a problem import would then reject (a duplicate id among them) must be named now.
 * They are read again with no window, and the errors that reading finds beyond the first one's are
 * theirs (or made by them, like a second message under one id). Not counted as the export's errors:
 * under the window they are never sent.
 */
import type { LocatedProblem, ValidateResult } from './validate-result.js';
import { runValidate, type ValidateOptions } from './validate-pass.js';

const keyOf = (p: LocatedProblem) => `${p.file}:${p.line}:${p.rule}`;

/** Sets `result.retention.errors` when some messages are beyond the window; a no-op otherwise. */
export async function checkBeyondWindow(options: ValidateOptions, result: ValidateResult): Promise<void> {
  if (result.retention === undefined || result.stoppedEarly || options.signal?.aborted) return;
  const all = await runValidate({ ...options, retentionDays: 0, maxErrors: 0 });
  if (options.signal?.aborted) return;
  const seen = new Set(result.errors.map(keyOf));
  const errors = all.errors.filter((p) => !seen.has(keyOf(p)));
  const count = Math.max(errors.length, all.errorCount - result.errorCount);
  if (count > 0) result.retention.errors = { count, listed: errors };
}
