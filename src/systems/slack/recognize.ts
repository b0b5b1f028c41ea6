import { type Recognizer, str } from '../detect/recognize.js';
import { isObject } from '../shared/items.js';

const SLACK_TS = /^\d{9,11}\.\d{1,6}$/;
const SLACK_USER_ID = /^[UWB][A-Z0-9]+$/;
const SLACK_CHANNEL_ID = /^[CGD][A-Z0-9]+$/;

export const recognizeSlack: Recognizer = {
  array(items) {
    const first = items[0];
    if (items.some((m) => typeof m.ts === 'string' && SLACK_TS.test(m.ts) && (m.type === 'message' || 'user' in m)))
      return { preset: 'slack', kind: 'messages', records: { at: 'top' } };
    const id = str(first.id) ?? '';
    if (SLACK_USER_ID.test(id) && (isObject(first.profile) || 'real_name' in first || 'is_bot' in first))
      return { preset: 'slack', kind: 'users', records: { at: 'top' } };
    if (
      SLACK_CHANNEL_ID.test(id) &&
      'name' in first &&
      ('created' in first || 'members' in first || 'is_general' in first)
    )
      return { preset: 'slack', kind: 'channels', records: { at: 'top' } };
    // Slack's dms.json: ids D..., members, no name.
    if (/^D[A-Z0-9]{2,}$/.test(id) && Array.isArray(first.members))
      return { preset: 'slack', kind: 'channels', records: { at: 'top' } };
    return undefined;
  },
};
