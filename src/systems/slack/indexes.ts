/**
 * Slack's index files as inputs: users.json -> users; channels/groups/mpims.json -> groups and
 * their `members` (the creator as admin); dms.json -> direct conversations, which are no groups:
 * each DM and its two memberships are read and skipped as `direct-conversation`, so the summary
 * accounts for them.
 */
import type { JsonObject } from '../../entities/types.js';
import type { RecordInput } from '../../sources/plan.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { fileInput, listInput, TOP_ARRAY } from '../shared/inputs.js';
import { compact, seconds, str } from '../shared/message-parts.js';
import { isObject } from '../shared/items.js';
import { groupOwner, groupRecord, memberRecord, userRecord } from '../shared/records.js';

export interface SlackConversation {
  sourceId: string;
  conversation: Conversation;
  /** The index file that lists it; undefined for a folder no index lists. */
  indexFile: string | undefined;
  withSkippedBot?: boolean;
}

export interface IndexFile {
  file: string;
  kind: 'public' | 'private' | 'direct';
  rel: string;
  /** Which root (pull run) of the export holds it, oldest 0. */
  root: number;
  /** How problems name it: `slack:channels.json`, or with its run folder when there are several. */
  display: string;
}

/** Whether a later root (pull run) lists the user or conversation again: this copy is not read. */
export type Superseded = (id: string, root: number) => boolean;

export function slackUsersInput(
  ctx: PresetContext,
  file: { rel: string; root: number; display: string },
  superseded: Superseded,
): RecordInput {
  const { rel, root, display } = file;
  return fileInput({
    ctx,
    rel,
    display,
    descend: TOP_ARRAY,
    reportProblems: true,
    map: (u) => {
      const id = str(u.id) ?? '';
      const profile = isObject(u.profile) ? u.profile : {};
      const value = userRecord({
        uid: ctx.uids.of(id),
        name: slackUserName(u),
        fallbackName: id,
        avatar: str(profile.image_192) ?? str(profile.image_512) ?? str(profile.image_72),
        // Slack marks removed accounts `deleted` and keeps no date: `updated` is the last change known.
        deactivatedAt: u.deleted === true ? seconds(u.updated) : undefined,
        metadata: {
          slackUserId: id,
          slackName: str(u.name),
          displayName: str(profile.display_name),
          title: str(profile.title),
          tz: str(u.tz),
          isAdmin: u.is_admin === true || undefined,
          isOwner: u.is_owner === true || undefined,
          isBot: u.is_bot === true || undefined,
          deleted: u.deleted === true || undefined,
        },
      });
      const skip = superseded(id, root)
        ? SKIP.superseded
        : u.is_bot === true && !ctx.options.includeBots
          ? SKIP.bot
          : undefined;
      return [{ value, skip, email: str(profile.email) }];
    },
  });
}

/** The name a Slack user goes by: the real name, else the display name, else the handle. */
export function slackUserName(u: JsonObject): string | undefined {
  const profile = isObject(u.profile) ? u.profile : {};
  return str(profile.real_name) ?? str(u.real_name) ?? str(profile.display_name) ?? str(u.name);
}

/**
 * A channel's owner: its creator, else its first member (Slack keeps no admins per channel) that is
 * imported (a bot is not, with includeBots off).
 */
function channelOwner(c: JsonObject, skipped: (id: string) => boolean): string | undefined {
  const members = Array.isArray(c.members) ? c.members.map(String) : [];
  return groupOwner(
    str(c.creator),
    [],
    members.filter((m) => !skipped(m)),
  );
}

export function slackGroupInputs(
  ctx: PresetContext,
  indexes: IndexFile[],
  orphans: string[],
  days: Array<{ rel: string; parts: string[] }>,
  botUsers: ReadonlySet<string>,
  superseded: Superseded,
): RecordInput[] {
  const skipped = (id: string) => botUsers.has(id) && !ctx.options.includeBots;
  const uidOf = (id: string | undefined) => (id === undefined ? undefined : ctx.uids.of(id));
  const inputs = indexes.map((index) =>
    fileInput({
      ctx,
      rel: index.rel,
      display: index.display,
      descend: TOP_ARRAY,
      reportProblems: true,
      map: (c) => {
        const id = str(c.id) ?? '';
        const members = Array.isArray(c.members) ? c.members : [];
        const direct = index.kind === 'direct' && members.length >= 1 && members.length <= 2;
        const topic = isObject(c.topic) ? str(c.topic.value) : undefined;
        const purpose = isObject(c.purpose) ? str(c.purpose.value) : undefined;
        const value = groupRecord({
          guid: ctx.guids.of(id),
          name: str(c.name),
          fallbackName: id,
          type: index.kind === 'public' ? 'public' : 'private',
          owner: uidOf(channelOwner(c, skipped)),
          createdAt: seconds(c.created),
          metadata: {
            slackChannelId: id,
            slackName: str(c.name),
            topic,
            purpose,
            isArchived: c.is_archived === true || undefined,
            isGeneral: c.is_general === true || undefined,
            slackKind: index.file.replace('.json', ''),
          },
        });
        const skip = direct ? SKIP.direct : superseded(id, index.root) ? SKIP.superseded : undefined;
        return [{ value, skip }];
      },
    }),
  );
  // Folders no index file lists: private groups named after them, placed at their first day file.
  const orphanEntries = orphans.map((folder) => ({
    value: groupRecord({
      guid: ctx.guids.of(folder),
      fallbackName: folder,
      type: 'private',
      metadata: { slackFolder: folder },
    }),
    file: ctx.tree.where(days.find((d) => d.parts[0] === folder)?.rel ?? folder),
    line: 0,
  }));
  if (orphans.length > 0) inputs.push(listInput('slack:folders-without-index', orphanEntries));
  return inputs;
}

export function slackMemberInputs(
  ctx: PresetContext,
  indexes: IndexFile[],
  botUsers: ReadonlySet<string>,
): RecordInput[] {
  return indexes.map((index) =>
    fileInput({
      ctx,
      rel: index.rel,
      display: `${index.display}#members`,
      descend: TOP_ARRAY,
      // The groups input of the same file reports its bad pieces.
      reportProblems: false,
      map: (c) => {
        const id = str(c.id) ?? '';
        const members = Array.isArray(c.members) ? c.members.map(String) : [];
        const direct = index.kind === 'direct' && members.length >= 1 && members.length <= 2;
        const owner = channelOwner(c, (id) => botUsers.has(id) && !ctx.options.includeBots);
        return members.map((m) => {
          const value = memberRecord({
            guid: ctx.guids.of(id),
            uid: ctx.uids.of(m),
            scope: m === owner ? 'admin' : 'participant',
          });
          const skip = direct ? SKIP.direct : botUsers.has(m) && !ctx.options.includeBots ? SKIP.bot : undefined;
          return compact({ value, skip }) as { value: typeof value; skip?: string };
        });
      },
    }),
  );
}
