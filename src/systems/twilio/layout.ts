/**
 * What the pull writes, in the layout the twilio preset reads (docs/presets/twilio.md): one list page
 * document per file, `{"<key>": [items as the API answered them], "meta": {"key": "<key>"}}`, the
 * preset telling each file's kind by its list key, never by its name. Each media item of a message
 * gets the stable address of its bytes on the Media Content Service (`links.content`): the temporary
 * links Twilio hands out expire, this address does not (it needs the account's Basic auth).
 */
import type { FileLayout } from '../shared/pull-types.js';
import { isObject, type ListKey, type TwilioItem } from './api.js';

/** The lists a page holds, by their key, and what `init` calls a file of each. */
export const LIST_FILE_KINDS = {
  conversations: 'channels',
  participants: 'members',
  messages: 'messages',
  users: 'users',
} as const;
export type TwilioKind = keyof typeof LIST_FILE_KINDS;

/** What a resource is by its SID's first two letters: a CLI array has no list key to say it. */
export const SID_PREFIX: Readonly<Record<string, TwilioKind>> = {
  CH: 'conversations',
  MB: 'participants',
  IM: 'messages',
  US: 'users',
};

export const listLayout = (key: ListKey): FileLayout => ({
  json: { head: `{"${key}":[`, tail: `],"meta":{"key":"${key}"}}` },
});

/** Path-safe: SIDs are letters and hex digits; anything else (a fake's or a proxy's ids) is replaced. */
const safe = (sid: string) => sid.replace(/[^A-Za-z0-9_-]/g, '_');

export const files = {
  services: 'services.json',
  users: (service: string) => `users/${safe(service)}.json`,
  conversations: (service: string) => `conversations/${safe(service)}.json`,
  participants: (conversation: string) => `participants/${safe(conversation)}.json`,
  messages: (conversation: string) => `messages/${safe(conversation)}.json`,
};

/** The Media resource's content on the Media Content Service: its bytes, with the account's auth. */
export function mediaContentUrl(mediaBaseUrl: string, service: string, mediaSid: string): string {
  return `${mediaBaseUrl}/v1/Services/${encodeURIComponent(service)}/Media/${encodeURIComponent(mediaSid)}/Content`;
}

/** A message as written: as answered, each media item with `links.content` (see the file's comment). */
export function messageForExport(message: TwilioItem, service: string, mediaBaseUrl: string): TwilioItem {
  if (!Array.isArray(message.media) || message.media.length === 0) return message;
  const chatService = typeof message.chat_service_sid === 'string' ? message.chat_service_sid : service;
  const media = message.media.map((m: unknown) => {
    if (!isObject(m) || typeof m.sid !== 'string') return m;
    const links = isObject(m.links) ? m.links : {};
    return { ...m, links: { ...links, content: mediaContentUrl(mediaBaseUrl, chatService, m.sid) } };
  });
  return { ...message, media };
}
