import type { Recognizer } from '../detect/recognize.js';
import { recordsAt, topKeys } from '../detect/peek.js';
import { isObject } from '../shared/items.js';
import { CHANNEL_KEYS, USER_KEYS } from './layout.js';

export const recognizeSendbird: Recognizer = {
  // Sendbird Data Export: the file's first key says what it holds.
  document(doc) {
    const first = topKeys(doc)[0];
    if (first !== undefined && USER_KEYS.has(first) && recordsAt(doc, first).some((u) => 'user_id' in u))
      return { preset: 'sendbird', kind: 'users', records: { at: first } };
    if (first !== undefined && CHANNEL_KEYS.has(first) && recordsAt(doc, first).some((c) => 'channel_url' in c))
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
