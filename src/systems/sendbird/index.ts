import type { System } from '../shared/system.js';
import { recognizeSendbird } from './recognize.js';

export const system: System = {
  recognize: recognizeSendbird,
  preset: () => import('./preset.js').then((m) => m.planSendbird),
  source: () => import('./source.js').then((m) => m.source),
  expiringHosts: [
    { pattern: '*.sendbird.com', why: 'Sendbird file URLs may need its auth and end with the app' },
    { pattern: '*.sendbirdcdn.com', why: 'Sendbird file URLs end with the app' },
  ],
};
