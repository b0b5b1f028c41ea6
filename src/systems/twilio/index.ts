import type { System } from '../shared/system.js';
import { recognizeTwilio } from './recognize.js';

export const system: System = {
  recognize: recognizeTwilio,
  preset: () => import('./preset.js').then((m) => m.planTwilio),
  source: () => import('./source.js').then((m) => m.source),
  expiringHosts: [
    { pattern: '*.twiliocdn.com', why: 'Twilio media URLs need the account and expire' },
    { pattern: 'media.twiliocdn.com', why: 'Twilio media URLs need the account and expire' },
    { pattern: 'api.twilio.com', why: 'Twilio media URLs need the account' },
    {
      pattern: 'mcs.us1.twilio.com',
      why: "Twilio Conversations media need the account's auth (Media Content Service)",
    },
  ],
};
