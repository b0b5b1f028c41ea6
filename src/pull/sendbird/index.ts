// Placeholder until the sendbird pull lands: replaced by its own module.
import { ConfigError } from '../../errors.js';
import type { LiveSource } from '../types.js';

export const source: LiveSource = {
  name: 'sendbird',
  envNames: [],
  defaultRequestsPerMinute: 60,
  authHint: '',
  credentials() {
    throw new ConfigError('PULL_NOT_BUILT', 'pull sendbird is not built yet');
  },
  async pull() {},
};
