/**
 * The inputs over a Mattermost export file, one per entity, each reading every line and taking its
 * own: users (user, bot lines), groups (channel, direct_channel of three or more), members (each
 * user's channel memberships, group messages' members), messages (post and direct_post lines with
 * their replies). Direct channels of two are read and skipped as `direct-conversation`, with their
 * two memberships, so the summary accounts for them. The messages input reports bad lines and
 * counts lines of a type it does not know.
 */
import type { JsonObject } from '../../entities/types.js';
import type { RecordInput } from '../../sources/plan.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { fileInput, type ListEntry, type Produced } from '../shared/inputs.js';
import { isObject } from '../shared/items.js';
import { seconds, str } from '../shared/message-parts.js';
import { groupOwner, groupRecord, memberRecord } from '../shared/records.js';
import { messageItems } from '../shared/message-record.js';
import {
  channelKey,
  directKey,
  directMembers,
  mapMattermostPost,
  mapMattermostUser,
  scopeOf,
  type MattermostPlace,
} from './map.js';

/** Line types that are no entity of the service: read, not carried (see docs/presets/mattermost.md). */
const NOT_ENTITIES = new Set(['version', 'team', 'emoji', 'scheme', 'role']);
const ENTITY_LINES = new Set(['user', 'bot', 'channel', 'direct_channel', 'post', 'direct_post']);
/** A line of a type this preset does not know, or without its object. */
export const SKIP_UNKNOWN_LINE = 'unknown-line';

export interface KnownChannel {
  key: string;
  team: string;
  name: string;
  file: string;
  line: number;
  /** A channel line declares it; else only memberships or posts name it. */
  declared: boolean;
  conversation?: Conversation;
  /** Usernames of its first member and first channel admin (users lines): its owner, as none is recorded. */
  firstMember?: string;
  firstAdmin?: string;
}

export interface KnownDirect {
  key: string;
  members: string[];
  file: string;
  line: number;
  declared: boolean;
  conversation?: Conversation;
}

export interface Known {
  channels: Map<string, KnownChannel>;
  directs: Map<string, KnownDirect>;
  /** Team name -> display name. */
  teams: Map<string, string | undefined>;
  bots: Set<string>;
  /** Every username of a user or bot line: what `@name` in a post may mention. */
  usernames: Set<string>;
  sameMoment: Map<string, number>;
}

export function mattermostInputs(ctx: PresetContext, files: string[], known: Known) {
  const lines = (
    rel: string,
    entity: string,
    reportProblems: boolean,
    map: (type: string, body: JsonObject) => Produced[],
  ) =>
    fileInput({
      ctx,
      rel,
      display: `mattermost:${rel}#${entity}`,
      descend: 'lines',
      reportProblems,
      map: (value) => {
        const type = str(value.type) ?? '';
        const body = value[type];
        if (!isObject(body) || !ENTITY_LINES.has(type)) return [];
        return map(type, body);
      },
    });
  const skippedBot = (name: string) => !ctx.options.includeBots && known.bots.has(name);
  const uidOf = (name: string | undefined) => (name === undefined ? undefined : ctx.uids.of(name));
  const listOf = (name: string | undefined) => (name === undefined ? [] : [name]);
  // No channel records its creator: its first channel admin owns it, else its first member.
  const channelGroup = (c: KnownChannel, body: JsonObject | undefined): JsonObject =>
    groupRecord({
      guid: ctx.guids.of(c.key),
      name: str(body?.display_name),
      fallbackName: c.name,
      type: str(body?.type) === 'O' ? 'public' : 'private',
      owner: uidOf(groupOwner(undefined, listOf(c.firstAdmin), listOf(c.firstMember))),
      metadata: {
        mattermostChannel: c.key,
        team: c.team,
        teamName: known.teams.get(c.team),
        channelName: c.name,
        header: str(body?.header),
        purpose: str(body?.purpose),
        archivedAt: seconds(body?.deleted_at),
        from: c.declared ? undefined : 'references',
      },
    });
  const directGroup = (d: KnownDirect, body: JsonObject | undefined): JsonObject =>
    groupRecord({
      guid: ctx.guids.of(d.key),
      fallbackName: d.members.join(', '),
      type: 'private',
      owner: uidOf(
        groupOwner(
          undefined,
          [],
          d.members.filter((m) => !skippedBot(m)),
        ),
      ),
      metadata: { mattermostChannel: d.key, mattermostType: 'G', members: d.members, header: str(body?.header) },
    });
  const directMemberRecords = (d: KnownDirect): Produced[] =>
    d.members.map((m) => {
      const value = memberRecord({ guid: ctx.guids.of(d.key), uid: ctx.uids.of(m), scope: 'participant' });
      if (d.conversation!.kind === 'direct') return { value, skip: SKIP.direct };
      return skippedBot(m) ? { value, skip: SKIP.bot } : { value };
    });
  const placeOf = (type: string, body: JsonObject): MattermostPlace | undefined => {
    const where =
      type === 'post'
        ? known.channels.get(channelKey(str(body.team) ?? '', str(body.channel) ?? ''))
        : known.directs.get(directKey(directMembers(body)));
    return where?.conversation === undefined ? undefined : { key: where.key, conversation: where.conversation };
  };

  const undeclared = [...known.channels.values()].filter((c) => !c.declared);
  const groupMessages = [...known.directs.values()].filter((d) => !d.declared && d.conversation!.kind === 'group');
  const at = (x: { file: string; line: number }) => ({ file: x.file, line: x.line });
  return {
    users: files.map((rel) =>
      lines(rel, 'users', false, (type, body) => {
        if (type !== 'user' && type !== 'bot') return [];
        const value = mapMattermostUser(body, type === 'bot', ctx);
        if (!str(body.username)) return [{ value, skip: SKIP.noSender }];
        return [type === 'bot' && !ctx.options.includeBots ? { value, skip: SKIP.bot } : { value }];
      }),
    ),
    groups: files.map((rel) =>
      lines(rel, 'groups', false, (type, body) => {
        if (type === 'channel') {
          const c = known.channels.get(channelKey(str(body.team) ?? '', str(body.name) ?? ''));
          return c === undefined ? [] : [{ value: channelGroup(c, body) }];
        }
        if (type !== 'direct_channel') return [];
        const d = known.directs.get(directKey(directMembers(body)));
        if (d === undefined) return [];
        const value = directGroup(d, body);
        return [d.conversation!.kind === 'direct' ? { value, skip: SKIP.direct } : { value }];
      }),
    ),
    referencedGroups: [
      ...undeclared.map((c): ListEntry => ({ ...at(c), value: channelGroup(c, undefined) })),
      ...groupMessages.map((d): ListEntry => ({ ...at(d), value: directGroup(d, undefined) })),
    ],
    members: files.map((rel) =>
      lines(rel, 'members', false, (type, body) => {
        if (type === 'direct_channel') {
          const d = known.directs.get(directKey(directMembers(body)));
          return d === undefined ? [] : directMemberRecords(d);
        }
        if (type !== 'user' || !str(body.username)) return [];
        const uid = ctx.uids.of(str(body.username)!);
        return (Array.isArray(body.teams) ? body.teams.filter(isObject) : []).flatMap((team) =>
          (Array.isArray(team.channels) ? team.channels.filter(isObject) : [])
            .filter((ch) => str(team.name) && str(ch.name))
            .map((ch) => ({
              value: memberRecord({
                guid: ctx.guids.of(channelKey(str(team.name)!, str(ch.name)!)),
                uid,
                scope: scopeOf(ch.roles, team.roles, body.roles),
              }),
            })),
        );
      }),
    ),
    referencedMembers: groupMessages.flatMap((d) =>
      directMemberRecords(d).map((m): ListEntry => ({ ...at(d), value: m.value })),
    ),
    messages: files.map(
      (rel): RecordInput =>
        fileInput({
          ctx,
          rel,
          display: `mattermost:${rel}#messages`,
          descend: 'lines',
          reportProblems: true,
          map: (value) => {
            const type = str(value.type) ?? '';
            const body = value[type];
            if (NOT_ENTITIES.has(type)) return [];
            if (!isObject(body) || !ENTITY_LINES.has(type)) return [{ value, skip: SKIP_UNKNOWN_LINE }];
            if (type !== 'post' && type !== 'direct_post') return [];
            const place = placeOf(type, body);
            if (place === undefined) return [{ value, skip: SKIP.noConversation }];
            const posts = mapMattermostPost(body, place, known, ctx).flatMap(messageItems);
            // A direct channel with a bot that is not imported has nobody to receive its messages.
            const withBot = place.conversation.kind === 'direct' && directMembers(body).some(skippedBot);
            return withBot ? posts.map((p) => ({ value: p.value, skip: p.skip ?? SKIP.bot })) : posts;
          },
        }),
    ),
  };
}
