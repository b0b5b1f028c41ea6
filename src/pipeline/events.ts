import type { EntityName } from '../entities/types.js';

/** Per-entity counts of one run (the summary's rows). */
export interface EntityCounts {
  /** Records read from the sources this run (good or bad), including ones acknowledged in an earlier run. */
  read: number;
  imported: number;
  /** The service already had them (re-sent after a crash, or imported before). */
  alreadyPresent: number;
  rejected: number;
  /** Not sent on purpose: deleted messages, before --since. */
  skipped: number;
  /** Acknowledged by an earlier run and not sent again. */
  resumed: number;
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
  skipped: 0,
  resumed: 0,
  requests: 0,
  retries: 0,
  elapsedMs: 0,
});

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
  warning(message: string): void;
  info(message: string): void;
}

export const silentEvents: RunEvents = {
  phaseStarted() {},
  progress() {},
  phaseFinished() {},
  warning() {},
  info() {},
};
