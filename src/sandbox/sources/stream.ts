// Placeholder until the stream fake lands: replaced by its own module.
import type { FakeSource } from './types.js';

export const fake: FakeSource = {
  name: 'stream',
  idStyle: 'slug',
  credentials: () => ({}),
  authorized: () => false,
  unauthorized: () => ({ status: 401 }),
  rateLimited: () => ({ status: 429 }),
  route: () => undefined,
};
