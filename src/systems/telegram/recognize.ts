import type { Recognizer } from '../detect/recognize.js';
import { recordsAt } from '../detect/peek.js';
import { isObject } from '../shared/items.js';

export const recognizeTelegram: Recognizer = {
  document(doc) {
    // Telegram Desktop: one chat (`{name, type, id, messages}`) or the full export (`chats.list`).
    if (isObject(doc.chats) || isObject(doc.personal_information) || isObject(doc.left_chats))
      return { preset: 'telegram', kind: 'mixed', records: { at: 'chats' } };
    const firstMessage = recordsAt(doc, 'messages')[0];
    if (
      typeof doc.type === 'string' &&
      'id' in doc &&
      firstMessage !== undefined &&
      ('date_unixtime' in firstMessage || 'from_id' in firstMessage || 'actor_id' in firstMessage)
    )
      return { preset: 'telegram', kind: 'mixed', records: { at: 'messages' } };
    return undefined;
  },
};
