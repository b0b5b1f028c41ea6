import type { System } from '../shared/system.js';
import { recognizeTwilio } from './recognize.js';

export const system: System = {
  recognize: recognizeTwilio,
  preset: () => import('./preset.js').then((m) => m.planTwilio),
  source: () => import('./source.js').then((m) => m.source),
};
