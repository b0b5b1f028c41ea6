/**
 * The fakes of the live sources, for tests and the bench: `startFake('slack', {...})` serves one in this
 * process on a loopback port. Each call owns its world, counters and the source's state.
 */
import { type FakeServerHandle, type FakeServerOptions, startFakeServer } from './fake-server.js';
import { FAKES, type FakeSourceName } from './registry.js';
import type { FakeSource } from './types.js';

export { answerControl, describeWorld, type FakeStats } from './fake-control.js';
export type { FakeServerHandle, FakeServerOptions } from './fake-server.js';
export { FAKE_NOW_MS, FAKE_WORLD_DEFAULTS, GeneratedWorld, type FakeWorldOptions } from './fake-world.js';
export { FAKE_SOURCE_NAMES, FAKES, type FakeSourceName } from './registry.js';
export type * from './types.js';

/** Starts the fake of `source` (a live source's name, or any FakeSource); resolves once it listens. */
export function startFake(
  source: FakeSourceName | FakeSource,
  options: Omit<FakeServerOptions, 'source'> = {},
): Promise<FakeServerHandle> {
  const fake = typeof source === 'string' ? FAKES[source] : source;
  if (fake === undefined) throw new RangeError(`no fake of ${source}: ${Object.keys(FAKES).join(', ')}`);
  return startFakeServer({ ...options, source: fake });
}
