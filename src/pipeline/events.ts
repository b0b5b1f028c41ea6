import type { EntityName } from '../entities/types.js';

/** Per-entity counts of one run (the summary's rows). */
export interface EntityCounts {
  /** Records read from the sources this run (good or bad), including ones acknowledged in an earlier run. */
  read: number;
  imported: number;
  /** The service already had them (re-sent after a crash, or imported before). */
  alreadyPresent: number;
  /** Records not in because the service or a check refused them, this run or an earlier one (still open). */
  rejected: number;
  /** Of `rejected`, those an earlier run rejected already for the same reason: still open. */
  rejectedEarlier: number;
  /** Held back: a member or message whose user or group is not in (sent once it is). */
  blocked: number;
  /** Not sent on purpose: deleted messages, before --since. */
  skipped: number;
  /** Problems of a whole file (a broken header, a break that ends it): no record, but not all is in. */
  fileProblems: number;
  /** `skipped` by reason. */
  skippedBy: Record<string, number>;
  /** Acknowledged by an earlier run and not sent again. */
  resumed: number;
  /** Files not read again: they end where an earlier reading to their end left them (their slots are in `resumed`). */
  unchangedFiles?: number;
  /** Read but not answered when the run stopped (Ctrl+C, a fatal error): the next run reads them again. */
  unsent: number;
  requests: number;
  retries: number;
  elapsedMs: number;
}

/** A run's counts per entity, filled as phases go. */
export type RunCounts = Partial<Record<EntityName, EntityCounts>>;

export const emptyCounts = (): EntityCounts => ({
  read: 0,
  imported: 0,
  alreadyPresent: 0,
  rejected: 0,
  rejectedEarlier: 0,
  blocked: 0,
  skipped: 0,
  skippedBy: {},
  fileProblems: 0,
  resumed: 0,
  unsent: 0,
  requests: 0,
  retries: 0,
  elapsedMs: 0,
});

/** A request that failed and is tried again after a pause (a 429, a 5xx, no answer). */
export interface RetryNotice {
  /** This retry's number, from 1, and the most the policy allows per request. */
  attempt: number;
  of: number;
  /** The pause before the request is sent again. */
  delayMs: number;
  /** What failed, short: `ECONNREFUSED 127.0.0.1:8796`, `HTTP 429`, `HTTP 503 ERR_X`. */
  reason: string;
}

/**
 * What the core tells the outside world. The core never prints: a Reporter (TTY bars, CI lines, JSON)
 * implements these, and tests can record them.
 */
export interface RunEvents {
  phaseStarted(entity: EntityName, expectedRecords: number | undefined): void;
  /** Called often (per batch); reporters throttle their drawing. */
  progress(entity: EntityName, counts: Readonly<EntityCounts>): void;
  /** `completed`: every input was read to the end (false when stopped or failed). */
  phaseFinished(entity: EntityName, counts: Readonly<EntityCounts>, completed: boolean): void;
  /** A request of this phase waits to be tried again: a person sees why the run is not moving. */
  retrying(entity: EntityName, notice: Readonly<RetryNotice>): void;
  warning(message: string): void;
  info(message: string): void;
}

export const silentEvents: RunEvents = {
  phaseStarted() {},
  progress() {},
  phaseFinished() {},
  retrying() {},
  warning() {},
  info() {},
};
