// Placeholder until the slack fake lands: replaced by its own module.
import type { FakeSource } from './types.js';

export const fake: FakeSource = {
  name: 'slack',
  idStyle: 'slug',
  credentials: () => ({}),
  authorized: () => false,
  unauthorized: () => ({ status: 401 }),
  rateLimited: () => ({ status: 429 }),
  route: () => undefined,
};
