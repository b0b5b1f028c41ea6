// A clock for tests: its sleep moves `now` forward at once, so a Retry-After of a minute, a limiter's
// pacing or a reporter's 5-second interval costs no real time, and stays measurable by `now`.

/**
 * @typedef {import('../dist/clock.js').Clock & {
 *   advance(ms: number): void,
 *   readonly slept: number[],
 * }} VirtualClock
 */

/**
 * A virtual clock from `start` (default: the real now, so the service's reset times still make sense).
 * Each sleep waits for its deadline: `now` becomes at least the time of the call plus `ms`, and sleeps
 * started together end together (not one after the other). It resolves on the next turn of the event
 * loop, so sockets and timers keep going between the waits. `slept` lists every wait asked for.
 * @param {number} [start]
 * @returns {VirtualClock}
 */
export function virtualClock(start = Date.now()) {
  let now = start;
  /** @type {number[]} */
  const slept = [];
  return {
    now: () => now,
    sleep(ms, signal) {
      const due = now + Math.max(0, ms);
      slept.push(ms);
      return new Promise((resolve) =>
        setImmediate(() => {
          if (!signal?.aborted) now = Math.max(now, due);
          resolve();
        }),
      );
    },
    advance(ms) {
      now += ms;
    },
    slept,
  };
}
