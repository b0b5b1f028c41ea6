/**
 * What every preset is given: the export's files, the resolved options, the id transforms of the
 * configured rule (uids and guids cached) and the id mapping file. Also the two shapes a
 * conversation can take on the service.
 */
import type { SystemName } from '../registry.js';
import type { ExportTree } from './export-tree.js';
import type { IdCache, IdMapWriter, IdRule, ServiceIds } from './ids.js';
import type { PrepassCache } from './prepass-cache.js';

/** Options of `planPreset`; all but cwd optional. */
export interface PresetOptions {
  cwd: string;
  /** Where the id mapping file (source id -> new id) is written; none without it. */
  idMapFile?: string;
  /** Where the pre-pass's facts of each message file are kept between runs (prepass-cache.ts); none without it. */
  prepassFile?: string;
  /** How service ids are derived from the export's (shared/ids.ts). Default `vendor`. */
  idRule?: IdRule;
  /** uid that sends admin/system/service messages; created as a user when used. Default `system`. */
  systemUser?: string;
  /** Import bot users and bot messages. Default true; when false they are skipped with reason `bot`. */
  includeBots?: boolean;
  /** Import join/leave events as messages. Default false: skipped with reason `join-leave`. */
  includeJoinLeave?: boolean;
  /**
   * Where the export's media files were uploaded: relative media paths (Telegram's `photos/...`,
   * DiscordChatExporter's downloaded assets) become attachment URLs under it. Without it such
   * media cannot be attachments (the service takes URLs, never files).
   */
  mediaBaseUrl?: string;
}

export interface ResolvedOptions {
  idRule: IdRule;
  systemUser: string;
  includeBots: boolean;
  includeJoinLeave: boolean;
  mediaBaseUrl?: string;
}

export interface PresetContext {
  preset: SystemName;
  tree: ExportTree;
  options: ResolvedOptions;
  idMap: IdMapWriter;
  uids: IdCache;
  guids: IdCache;
  /** Users' names by source id, as the users file and the records tell them: names mentions on the service. */
  names: Map<string, string>;
  /** Muids from the export's message ids (or from what a preset takes as a message's identity). */
  muids: ServiceIds;
  /** The files of the tree the preset read (pre-pass or inputs): the rest are named as left unread. */
  read?: Set<string>;
  /** The pre-pass's facts of message files seen in an earlier run. */
  prepass: PrepassCache;
}

/** A conversation on the service: a group, or user-to-user messages between two users (uids). */
export type Conversation = { kind: 'group'; guid: string } | { kind: 'direct'; members: readonly [string, string] };

/** The receiver of a message in a conversation; in a direct one, the member who is not the sender. */
export function receiverOf(
  conversation: Conversation,
  sender: string,
): { receiverType: 'user' | 'group'; receiver: string } {
  if (conversation.kind === 'group') return { receiverType: 'group', receiver: conversation.guid };
  const [a, b] = conversation.members;
  return { receiverType: 'user', receiver: sender === a ? b : a };
}

/** Skip reasons presets give records (counted as skipped in the summary). */
export const SKIP = {
  /** A two-person conversation: its messages go user to user, so it is no group and has no members. */
  direct: 'direct-conversation',
  bot: 'bot',
  joinLeave: 'join-leave',
  /** Nothing to show: no text, no attachment, nothing to describe in a placeholder. */
  empty: 'empty',
  noTimestamp: 'no-timestamp',
  noSender: 'no-sender',
  /** A message whose conversation the export does not say. */
  noConversation: 'no-conversation',
  /** Messages only their sender ever saw (Stream `ephemeral`/`error`). */
  ephemeral: 'ephemeral',
  /** A record without the id every other reference to it would use (a message with no message_id). */
  noId: 'no-id',
  /** A user or channel a later pull run (a delta) lists again: its newest copy is the one read. */
  superseded: 'superseded',
} as const;

export function resolveOptions(options: PresetOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    idRule: options.idRule ?? 'vendor',
    systemUser: options.systemUser ?? 'system',
    includeBots: options.includeBots ?? true,
    includeJoinLeave: options.includeJoinLeave ?? false,
  };
  if (options.mediaBaseUrl) resolved.mediaBaseUrl = options.mediaBaseUrl.replace(/\/+$/, '');
  return resolved;
}
