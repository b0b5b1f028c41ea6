/**
 * Where the pull puts what Slack answers: the layout of a Slack workspace export, which the slack
 * preset reads (src/systems/slack/preset.ts, docs/presets/slack.md): users.json, one index file per kind of
 * conversation, and a folder per conversation (channels by name, DMs by id) of day files.
 */
import type { FileLayout } from '../shared/pull-types.js';

/** The users' index file; with channels.json, what marks an export's root. */
export const USERS_FILE = 'users.json';

/**
 * The kinds of conversation, each listed with its own `conversations.list` type into its own index
 * file, and what the preset makes of its conversations (`becomes`).
 */
export const CONVERSATION_KINDS = [
  {
    type: 'public_channel',
    file: 'channels.json',
    scope: 'channels:read',
    history: 'channels:history',
    becomes: 'public',
  },
  { type: 'private_channel', file: 'groups.json', scope: 'groups:read', history: 'groups:history', becomes: 'private' },
  { type: 'mpim', file: 'mpims.json', scope: 'mpim:read', history: 'mpim:history', becomes: 'private' },
  { type: 'im', file: 'dms.json', scope: 'im:read', history: 'im:history', becomes: 'direct' },
] as const;

export type ConversationType = (typeof CONVERSATION_KINDS)[number]['type'];

/** A JSON array file: the items are written between `[` and `]`. */
export const ARRAY_FILE: FileLayout = { json: { head: '[', tail: ']' } };

/** What the message walk needs of a conversation, kept with the list page that found it. */
export interface ConversationFacts {
  id: string;
  type: ConversationType;
  /** Its folder of day files: the channel's name, a DM's id. */
  folder: string;
  /** Created, ms. */
  createdMs: number;
  /** Whether the token can read its history (a bot is not in every public channel). */
  member: boolean;
}

/** The folder a conversation's day files go in, as Slack's own export names it. */
export function folderOf(conversation: Record<string, unknown>, type: ConversationType): string {
  const id = String(conversation.id);
  if (type === 'im') return id;
  const name = typeof conversation.name === 'string' && conversation.name !== '' ? conversation.name : id;
  // Slack's names hold no slash; a fake or a proxy might: the folder must stay one level deep.
  return name.replace(/[/\\]/g, '_').replace(/^\.+/, '_');
}

/**
 * The day file of a conversation in one pull run. Slack pages history newest first and the pull
 * writes a conversation as one stream, so one file holds the run's messages of that conversation;
 * it is named after the first day it can hold (the conversation's creation, or the delta's cutoff),
 * which keeps the preset's oldest-day-first order.
 */
export function dayFileOf(folder: string, fromMs: number): string {
  const day = new Date(Math.max(0, fromMs)).toISOString().slice(0, 10);
  return `${folder}/${day}.json`;
}

/**
 * A conversation as the export's index file holds it: Slack's own object (id, name, created,
 * creator, topic, purpose, is_archived, is_general...) with `members`.
 */
export function indexEntry(conversation: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  const { num_members: _count, ...rest } = conversation;
  return { ...rest, members: [...members] };
}
