// Placeholder until the discord pull lands: replaced by its own module.
import { ConfigError } from '../../errors.js';
import type { LiveSource } from '../types.js';

export const source: LiveSource = {
  name: 'discord',
  envNames: [],
  defaultRequestsPerMinute: 60,
  authHint: '',
  credentials() {
    throw new ConfigError('PULL_NOT_BUILT', 'pull discord is not built yet');
  },
  async pull() {},
};
