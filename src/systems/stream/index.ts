import type { System } from '../shared/system.js';
import { streamExpiringLinks } from './link-refresh.js';
import { recognizeStream } from './recognize.js';

export const system: System = {
  recognize: recognizeStream,
  preset: () => import('./preset.js').then((m) => m.planStream),
  source: () => import('./source.js').then((m) => m.source),
  expiringLinks: streamExpiringLinks,
  expiringHosts: [{ pattern: '*.stream-io-cdn.com', why: "Stream's CDN URLs are signed and expire" }],
};
