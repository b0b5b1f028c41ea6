/**
 * `pull sendbird`: the Sendbird Platform API v3 read into the Data Export's layout, which the sendbird
 * preset imports. api.ts holds the paths and shapes, layout.ts the files, walk.ts the order of reading.
 */
import type { LiveSource } from '../shared/pull-types.js';
import { AUTH_HINT, ENV_NAMES, sendbirdCredentials } from './api.js';
import { walkSendbird } from './walk.js';

export const source: LiveSource = {
  name: 'sendbird',
  envNames: ENV_NAMES,
  // Sendbird's GET limit is per endpoint and per app, by plan: 10 a second on a free trial, the lowest
  // (Platform API "Rate limits"). 600 a minute keeps every plan safe; a larger plan can raise it.
  defaultRequestsPerMinute: 600,
  authHint: AUTH_HINT,
  credentials: sendbirdCredentials,
  pull: walkSendbird,
};
