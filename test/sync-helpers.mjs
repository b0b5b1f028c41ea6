// Shared by the sync tests: the Sendbird fake as the live source, and a folder whose config points at
// the import sandbox with the state in `state/`.
import { startFake as startSourceFake } from './fakes/helpers.mjs';
import { tempDir, writeConfig } from './helpers.mjs';

const WORLD = { users: 6, channels: 3, messages: 60, seed: 11 };

/**
 * The Sendbird fake with a small world (`options.world` another).
 * @param {Omit<import('./fakes/dist/index.js').FakeServerOptions, 'source'>} [options]
 */
export const startSyncFake = (t, options = {}) => startSourceFake(t, 'sendbird', { world: WORLD, ...options });

export async function syncWorkspace(sb) {
  const dir = await tempDir('cm-sync-');
  await writeConfig(dir, {
    baseUrl: sb.url,
    requestsPerMinute: 6000,
    restRequestsPerMinute: 6000,
    checkpoint: 'state/checkpoint.json',
    rejects: 'state/rejects.ndjson',
  });
  return dir;
}
