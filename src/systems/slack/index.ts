import type { System } from '../shared/system.js';
import { recognizeSlack } from './recognize.js';

export const system: System = {
  recognize: recognizeSlack,
  preset: () => import('./preset.js').then((m) => m.planSlack),
  source: () => import('./source.js').then((m) => m.source),
  expiringHosts: [{ pattern: 'files.slack.com', why: "Slack's url_private: needs a Slack login" }],
};
