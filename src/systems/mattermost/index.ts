import type { System } from '../shared/system.js';
import { recognizeMattermost } from './recognize.js';

export const system: System = {
  recognize: recognizeMattermost,
  preset: () => import('./preset.js').then((m) => m.planMattermost),
};
