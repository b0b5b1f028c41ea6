import { setMaxListeners } from 'node:events';

/**
 * How long the batches in flight get after the first signal: a stopped run exits within 3 s, and a
 * request cut short is sent again by the next run (the service answers already-exists).
 */
export const STOP_GRACE_MS = 2500;

/**
 * Ctrl+C handling shared by every command that sends. The first SIGINT/SIGTERM stops taking new
 * batches and lets the ones in flight finish; after `graceMs`, or at a second signal, requests under
 * way are aborted. The checkpoint is only ever replaced whole (and written at once when the run stops),
 * so it is valid whichever way the run ends; a third signal exits at once.
 */
export interface StopSignals {
  /** Soft: read no more, dispatch no more. */
  stop: AbortSignal;
  /** Hard: abort requests in flight. */
  hardStop: AbortSignal;
  dispose(): void;
}

/** What sends the signals: the process, or an emitter of an in-process caller. */
export interface SignalSource {
  on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
}

export function installStopSignals(
  source: SignalSource,
  onFirst: () => void,
  { graceMs = STOP_GRACE_MS, exit = () => {} }: { graceMs?: number; exit?: (code: number) => void } = {},
): StopSignals {
  const soft = new AbortController();
  const hard = new AbortController();
  // Every request in flight listens to a stop (a pull's to the soft one, the import's to the hard one):
  // more than the default 10 is expected, not a leak.
  setMaxListeners(0, soft.signal, hard.signal);
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  // Node passes the signal's name: the stop's reason, which the run log records.
  const handler = (signal: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      soft.abort(signal);
      onFirst();
      timer = setTimeout(() => hard.abort(), graceMs);
      timer.unref();
    } else if (count === 2) {
      hard.abort();
    } else {
      exit(130);
    }
  };
  source.on('SIGINT', handler);
  source.on('SIGTERM', handler);
  return {
    stop: soft.signal,
    hardStop: hard.signal,
    dispose() {
      if (timer) clearTimeout(timer);
      source.off('SIGINT', handler);
      source.off('SIGTERM', handler);
    },
  };
}
