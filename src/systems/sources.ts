import type { LiveSource, SourceName } from './types.js';

/** Each source's module, loaded only when its pull runs. */
const LOADERS: Record<SourceName, () => Promise<{ source: LiveSource }>> = {
  sendbird: () => import('./sendbird/index.js'),
  stream: () => import('./stream/index.js'),
  twilio: () => import('./twilio/index.js'),
  slack: () => import('./slack/index.js'),
  discord: () => import('./discord/index.js'),
};

export async function loadSource(name: SourceName): Promise<LiveSource> {
  return (await LOADERS[name]()).source;
}
