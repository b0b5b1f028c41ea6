import type { Recognizer } from '../detect/recognize.js';
import { isObject } from '../shared/items.js';
import { MEMBER_LIST_KEY } from './layout.js';

export const recognizeDiscord: Recognizer = {
  document(doc) {
    // DiscordChatExporter: {"guild": {...}, "channel": {"id", "type", ...}, "messages": [...]}; a DM's
    // guild may be null.
    if ((isObject(doc.guild) || doc.guild === null) && isObject(doc.channel) && 'id' in doc.channel)
      return { preset: 'discord', kind: 'messages', records: { at: 'messages' } };
    // `pull discord`'s member list: {"guildMembers": {guild}, "members": [...]}.
    if (isObject(doc[MEMBER_LIST_KEY]) && Array.isArray(doc.members))
      return { preset: 'discord', kind: 'users', records: { at: 'members' } };
    return undefined;
  },
};
