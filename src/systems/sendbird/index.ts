import type { System } from '../shared/system.js';
import { recognizeSendbird } from './recognize.js';

export const system: System = {
  recognize: recognizeSendbird,
  preset: () => import('./preset.js').then((m) => m.planSendbird),
  source: () => import('./source.js').then((m) => m.source),
};
