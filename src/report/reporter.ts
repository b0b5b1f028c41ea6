import type { RunEvents } from '../pipeline/events.js';

/** A RunEvents that draws; `close()` leaves the terminal clean before the summary prints. */
export interface Reporter extends RunEvents {
  close(): void;
}

/**
 * Colours only where a person may want them: `NO_COLOR` (any non-empty value, no-color.org) and
 * `--no-color` (which sets it, so dependencies see it too) turn them off.
 */
export const colourWanted = (env: NodeJS.ProcessEnv): boolean => !env.NO_COLOR;
