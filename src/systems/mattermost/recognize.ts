import type { Recognizer } from '../detect/recognize.js';

export const recognizeMattermost: Recognizer = {
  // mmctl's bulk export: the first line is always {"type": "version", "version": 1, ...}.
  lines: (first) =>
    first.type === 'version' && typeof first.version === 'number'
      ? { preset: 'mattermost', kind: 'mixed', records: { at: 'lines', type: 'post' } }
      : undefined,
};
