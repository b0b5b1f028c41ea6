/**
 * Where the pull writes Sendbird's objects: the Data Export's layout, which the sendbird preset reads by
 * each file's top-level key (docs/presets/sendbird.md): `active_users.json`, `deactivated_users.json`,
 * `group_channels.json`, `open_channels.json`, and one `messages/<channel>.json` per channel holding
 * `{"channel": {...}, "messages": [...]}`. Items go in as the API gave them: the preset maps those fields.
 */
import { createHash } from 'node:crypto';
import type { FileLayout, StreamSpec } from '../shared/pull-types.js';
import { type ChannelType, msOf, type SendbirdObject } from './api.js';

/**
 * The top-level keys that say what a file holds: those the pull writes (the Data Export's), and the
 * older export's `users` and `channels`. The preset and `init` read a file's kind from its first key.
 */
export const USER_KEYS: ReadonlySet<string> = new Set(['active_users', 'deactivated_users', 'users']);
export const CHANNEL_KEYS: ReadonlySet<string> = new Set(['group_channels', 'open_channels', 'channels']);

const listLayout = (key: string): FileLayout => ({ json: { head: `{"${key}":[`, tail: ']}' } });

const idOf = (item: unknown) => String((item as SendbirdObject).user_id ?? '');
const createdMs = (item: unknown) => msOf((item as SendbirdObject).created_at);

export const activeUsersStream: StreamSpec = {
  id: 'users:active',
  file: 'active_users.json',
  layout: listLayout('active_users'),
  entity: 'users',
  itemKey: idOf,
  itemTimeMs: createdMs,
};

export const deactivatedUsersStream: StreamSpec = {
  ...activeUsersStream,
  id: 'users:deactivated',
  file: 'deactivated_users.json',
  layout: listLayout('deactivated_users'),
};

/** Channels are filtered by the walk itself (new, or with new members), so no item time is given here. */
export const channelsStream = (type: ChannelType): StreamSpec => ({
  id: `channels:${type}`,
  file: `${type}.json`,
  layout: listLayout(type),
  entity: 'groups',
});

/** What the pull keeps of each channel: enough to read its messages after a resume, and its members. */
export interface ChannelFact {
  type: ChannelType;
  url: string;
  name?: string;
  /** Member ids as last listed (group channels); a delta writes only the ones not here. */
  members?: string[];
}

export function messagesStream(channel: ChannelFact): StreamSpec {
  const head = { channel_url: channel.url, channel_type: channel.type === 'open_channels' ? 'open' : 'group' };
  const named = channel.name === undefined ? head : { ...head, name: channel.name };
  return {
    id: `messages:${channel.url}`,
    file: `messages/${fileNameOf(channel.url)}.json`,
    layout: { json: { head: `{"channel":${JSON.stringify(named)},"messages":[`, tail: ']}' } },
    entity: 'messages',
    channel: channel.url,
    itemKey: (m) => String((m as SendbirdObject).message_id ?? ''),
    itemTimeMs: createdMs,
  };
}

/**
 * A file name for a channel URL: its safe characters as they are; a URL that needed changing (or is
 * long) gets a hash of itself, so two URLs never share a file.
 */
export function fileNameOf(url: string): string {
  const safe = url.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  if (safe === url && !/^\.+$/.test(url)) return safe;
  return `${safe}-${createHash('sha256').update(url).digest('hex').slice(0, 10)}`;
}
