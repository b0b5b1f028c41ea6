import type { System } from '../shared/system.js';
import { recognizeDiscord } from './recognize.js';

export const system: System = {
  recognize: recognizeDiscord,
  preset: () => import('./preset.js').then((m) => m.planDiscord),
  source: () => import('./source.js').then((m) => m.source),
  expiringHosts: [
    { pattern: 'cdn.discordapp.com', why: "Discord's CDN links expire (signed ex/is/hm parameters)" },
    { pattern: 'media.discordapp.net', why: "Discord's CDN links expire" },
  ],
};
