import { SOURCE_NAMES } from '../../systems/registry.js';
import type { FakeSource } from './types.js';

/** A fake for each live source `pull` reads: the one list of their names. */
export const FAKE_SOURCE_NAMES = SOURCE_NAMES;
export type FakeSourceName = (typeof FAKE_SOURCE_NAMES)[number];

/** Each fake's routes, loaded only when that fake is served. */
const LOADERS: Record<FakeSourceName, () => Promise<{ fake: FakeSource }>> = {
  sendbird: () => import('./sendbird.js'),
  stream: () => import('./stream.js'),
  twilio: () => import('./twilio.js'),
  slack: () => import('./slack.js'),
  discord: () => import('./discord.js'),
};

export async function loadFake(name: FakeSourceName): Promise<FakeSource> {
  return (await LOADERS[name]()).fake;
}
