import type { System } from '../shared/system.js';
import { recognizeDiscord } from './recognize.js';

export const system: System = {
  recognize: recognizeDiscord,
  preset: () => import('./preset.js').then((m) => m.planDiscord),
  source: () => import('./source.js').then((m) => m.source),
};
