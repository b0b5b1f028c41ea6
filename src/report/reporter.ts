import type { EntityCounts, RunEvents } from '../pipeline/events.js';

/** A RunEvents that draws; `close()` leaves the terminal clean before the summary prints. */
export interface Reporter extends RunEvents {
  close(): void;
}

export const rate = (c: EntityCounts): string => (c.elapsedMs > 0 ? ((c.imported + c.alreadyPresent) / (c.elapsedMs / 1000)).toFixed(1) : '0.0');
