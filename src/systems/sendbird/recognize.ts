import type { Recognizer } from '../detect/recognize.js';
import { recordsAt, topKeys } from '../detect/peek.js';
import { isObject } from '../shared/items.js';

const SENDBIRD_USERS = new Set(['active_users', 'deactivated_users', 'users']);
const SENDBIRD_CHANNELS = new Set(['group_channels', 'open_channels', 'channels']);

export const recognizeSendbird: Recognizer = {
  // Sendbird Data Export: the file's first key says what it holds.
  document(doc) {
    const first = topKeys(doc)[0];
    if (first !== undefined && SENDBIRD_USERS.has(first) && recordsAt(doc, first).some((u) => 'user_id' in u))
      return { preset: 'sendbird', kind: 'users', records: { at: first } };
    if (first !== undefined && SENDBIRD_CHANNELS.has(first) && recordsAt(doc, first).some((c) => 'channel_url' in c))
      return { preset: 'sendbird', kind: 'channels', records: { at: first } };
    if (
      (first === 'messages' || first === 'channel') &&
      (recordsAt(doc, 'messages').some((m) => 'message_id' in m || 'channel_url' in m) ||
        (isObject(doc.channel) && 'channel_url' in doc.channel))
    )
      return { preset: 'sendbird', kind: 'messages', records: { at: 'messages' } };
    return undefined;
  },
};
