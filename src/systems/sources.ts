import type { LiveSource, SourceName } from './shared/pull-types.js';

/** Each source's module, loaded only when its pull runs. */
const LOADERS: Record<SourceName, () => Promise<{ source: LiveSource }>> = {
  sendbird: () => import('./sendbird/source.js'),
  stream: () => import('./stream/source.js'),
  twilio: () => import('./twilio/source.js'),
  slack: () => import('./slack/source.js'),
  discord: () => import('./discord/source.js'),
};

export async function loadSource(name: SourceName): Promise<LiveSource> {
  return (await LOADERS[name]()).source;
}
