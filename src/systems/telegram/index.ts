import path from 'node:path';
import type { System } from '../shared/system.js';
import { recognizeTelegram } from './recognize.js';

export const system: System = {
  recognize: recognizeTelegram,
  preset: () => import('./preset.js').then((m) => m.planTelegram),
  // The preset reads one `result.json`; any other name in a folder is given as the file itself.
  presetFrom(tree, fromPath, files) {
    if (tree.kind !== 'folder' || files.some((rel) => rel.split('/').pop() === 'result.json')) return fromPath;
    return path.join(fromPath, files[0]);
  },
};
