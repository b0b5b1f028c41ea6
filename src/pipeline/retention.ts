/**
 * The service keeps messages for `retentionDays` (the vendor's default: about 6 months). The vendor's
 * migration guides say its import refuses older messages, and that one such message fails its whole
 * request with 500 after the rows before it were stored. So import leaves them out (skip reason
 * `beyond-retention`), validate names them, and verify reports them apart, never as missing
 * (docs/verify.md "Retention").
 */
import type { JsonObject } from '../entities/types.js';

const DAY = 86_400;

/** How many of the old messages validate names by file:line. */
export const OLD_NAMED = 10;

/** The UNIX second before which messages are beyond the window; undefined when it is unlimited (0). */
export function retentionCutoff(nowSec: number, retentionDays: number): number | undefined {
  return retentionDays > 0 ? nowSec - retentionDays * DAY : undefined;
}

/** Whether a mapped message's sentAt lies before the cutoff. */
export const isBeyondRetention = (sentAt: unknown, cutoffSec: number | undefined): boolean =>
  cutoffSec !== undefined && typeof sentAt === 'number' && sentAt < cutoffSec;

/** `2026-05-31`: the day a cutoff falls on, in UTC. */
export const cutoffDate = (cutoffSec: number): string => new Date(cutoffSec * 1000).toISOString().slice(0, 10);

/** What to do to send them after all: said by validate, import and the rejects alike. */
export const HOW_TO_SEND_OLD =
  'an app with extended storage sets retentionDays to its window (--retention-days <n>), or 0 for unlimited';

/** The one notice import and validate give; undefined when no message is that old. */
export function retentionNotice(count: number, retentionDays: number, nowSec: number): string | undefined {
  const cutoff = retentionCutoff(nowSec, retentionDays);
  if (count === 0 || cutoff === undefined) return undefined;
  const what = count === 1 ? '1 message was' : `${count} messages were`;
  return (
    `${what} sent before ${cutoffDate(cutoff)}, beyond the service's ${retentionDays}-day retention window ` +
    `(retentionDays): skipped as beyond-retention, since the service refuses them. To send them: ${HOW_TO_SEND_OLD}`
  );
}

/**
 * The messages a run leaves out as too old, and whether the window is the user's decision: a default
 * they never set is not one, so the run then ends with exit 3 (ExitCode.rejected) until they set it.
 */
export interface RetentionOutcome {
  notSent: number;
  days: number;
  /** The day the window starts (UTC). */
  cutoff: string;
  /** retentionDays was set in the config file, the environment or a flag. */
  chosen: boolean;
}

export function retentionOutcome(
  notSent: number,
  retentionDays: number,
  nowSec: number,
  chosen: boolean,
): RetentionOutcome | undefined {
  const cutoff = retentionCutoff(nowSec, retentionDays);
  if (notSent === 0 || cutoff === undefined) return undefined;
  return { notSent, days: retentionDays, cutoff: cutoffDate(cutoff), chosen };
}

/** The last line of validate and import when messages are left out as too old: how many and why. */
export function retentionLastLine(o: RetentionOutcome): string {
  const n = o.notSent.toLocaleString('en-US');
  const what = `${n} ${o.notSent === 1 ? 'message' : 'messages'} sent before ${o.cutoff}`;
  if (o.chosen) return `Not sent: ${what}, beyond the ${o.days}-day retention window (retentionDays).`;
  return (
    `Not sent: ${what}, beyond the default ${o.days}-day retention window: retentionDays is not set, so ` +
    'nobody has decided to leave them out yet. Set it (config or --retention-days): 0 sends them if the app ' +
    "keeps every message (extended storage); the app's window (180 by default) leaves them out."
  );
}

/**
 * Whether a 5xx answer is the service refusing a message as too old: its error says so (the vendor's
 * guides quote "Messages older than 6 months cannot be imported"). A bare 500 is not read as one: an
 * old message can be poison for other reasons, and those may clear. A refusal is the record's own (it
 * fails the same way every time), so it is not tried again on later runs.
 */
export const isRetentionRefusal = (error: { message?: string } | undefined): boolean =>
  /older than|retention/i.test(error?.message ?? '');

/** The reject's reason: names the window, the message's day, and the way to send it or leave it out. */
export function retentionRefusalMessage(
  payload: JsonObject,
  status: number,
  said: string | undefined,
  retentionDays: number,
): string {
  const sent = typeof payload.sentAt === 'number' ? `, sent ${cutoffDate(payload.sentAt)},` : '';
  const window = retentionDays > 0 ? `${retentionDays} days` : 'unlimited (0)';
  return (
    `the service refused this message${sent} with HTTP ${status}${said ? ` (${said})` : ''}: it is older than the ` +
    `app's retention window, and retentionDays (${window}) is longer than the window the app keeps. Import ` +
    "does not send it again. Set retentionDays to the app's window (the vendor's default: 180) and import " +
    "skips such messages as beyond-retention; or, once the vendor has extended the app's storage, run replay"
  );
}
