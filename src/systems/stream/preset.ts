/**
 * Stream (getstream.io): its import format and its channel export (see read.ts for the
 * layouts), one file or a folder/zip of them. Two sweeps before the run, both streaming: the first
 * learns the channels (and the member lists of `!members-` channels, which a v1 export writes after
 * the messages and a v2 export as member lines naming their channel) and the import file's
 * reactions; the second finds the users and channels the records need and writes the id map.
 */
import type { JsonObject, SourceItem } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import type { PresetContext } from '../shared/context.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { seconds, str } from '../shared/message-parts.js';
import { addMessageIds, messageItems } from '../shared/message-record.js';
import { People } from '../shared/people.js';
import { listInput, plansOf } from '../shared/inputs.js';
import { problemItem, recordItem } from '../shared/items.js';
import { groupRecord } from '../shared/records.js';
import {
  channelKey,
  idOf,
  mapStreamChannel,
  mapStreamMember,
  mapStreamMessage,
  mapStreamUser,
  streamScope,
  type ReactionSeen,
  type StreamChannel,
} from './map.js';
import { detectLayout } from '../shared/file-shape.js';
import { streamEvents, type StreamEvent, type StreamKind, type StreamLayout } from './read.js';

const STREAM_FILE = /\.(json|jsonl|ndjson)$/i;
const DISTINCT_ID = '!members-';

interface Known {
  channels: Map<string, StreamChannel>;
  /** `rel#holder` -> channel key: which channel a v1 object's messages and members belong to. */
  holders: Map<string, string>;
  reactions: Map<string, ReactionSeen[]>;
  /** Channels records refer to but no file declares: created from what the references say. */
  missing: Map<string, { file: string; line: number }>;
}

export async function planStream(ctx: PresetContext): Promise<EntityPlan[]> {
  const files: Array<{ rel: string; layout: StreamLayout }> = [];
  for (const rel of ctx.tree.files.filter((f) => STREAM_FILE.test(f) || ctx.tree.kind === 'file')) {
    const layout = await detectLayout(ctx, rel);
    if (layout !== undefined) files.push({ rel, layout });
  }
  if (files.length === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a Stream export: no JSON or JSON Lines file found');

  const known: Known = { channels: new Map(), holders: new Map(), reactions: new Map(), missing: new Map() };
  const people = new People(ctx);
  // Member ids of each channel, for `!members-` channels: by v1 object (`rel#holder`), or by cid (v2 lines).
  const memberLists = new Map<string, string[]>();
  const linedMembers = new Map<string, string[]>();
  // What each file holds, so a file gets inputs only for the entities it has (each input reads it once).
  const holds = new Map<string, Set<StreamKind | 'users'>>();
  const earliest = new Map<string, number>();

  // Sweep 1: channels, `!members-` member lists, reactions, the users file's users.
  for (const { rel, layout } of files) {
    const kinds = new Set<StreamKind | 'users'>();
    holds.set(rel, kinds);
    for await (const e of streamEvents(ctx, rel, layout)) {
      kinds.add(e.kind === 'user' ? 'users' : e.kind === 'problem' ? (e.about ?? 'users') : e.kind);
      if (e.kind === 'user') people.list(idOf(e.value) ?? '', str(e.value.name));
      else if (e.kind === 'channel') {
        const c = e.value;
        const key = channelKey(str(c.type), str(c.id), c.member_ids) ?? str(c.cid) ?? '';
        if (e.holder !== undefined) known.holders.set(`${rel}#${e.holder}`, key);
        const id = str(c.id) ?? key.slice(key.indexOf(':') + 1);
        const channel: StreamChannel = {
          key,
          type: str(c.type) ?? 'messaging',
          id,
          createdAt: seconds(c.created_at),
          conversation: { kind: 'group', guid: ctx.guids.of(key) },
        };
        if (Array.isArray(c.member_ids)) channel.distinctMembers = c.member_ids.map(String);
        known.channels.set(key, channel);
      } else if (e.kind === 'member') {
        // A v1 object's members belong to its channel (known once read); a v2 line names its channel.
        const v = e.value;
        const list =
          e.holder !== undefined
            ? listOf(memberLists, `${rel}#${e.holder}`)
            : listOf(linedMembers, str(v.cid) ?? channelKey(str(v.channel_type), str(v.channel_id), undefined) ?? '');
        const uid = idOf(v.user_id) ?? idOf(v.user);
        // Up to three: enough to tell two people from a group. Pulls may list a member again in a delta.
        if (uid !== undefined && list.length <= 2 && !list.includes(uid)) list.push(uid);
      } else if (e.kind === 'reaction') {
        const messageId = str(e.value.message_id) ?? '';
        const list = known.reactions.get(messageId) ?? [];
        list.push({
          type: str(e.value.type) ?? '',
          user: idOf(e.value.user_id) ?? idOf(e.value.user),
          at: seconds(e.value.created_at),
        });
        known.reactions.set(messageId, list);
      }
    }
  }
  const distinct = (key: string | undefined, list: string[]) => {
    const channel = known.channels.get(key ?? '');
    if (channel?.id.startsWith(DISTINCT_ID) && channel.distinctMembers === undefined) channel.distinctMembers = list;
  };
  for (const [holder, list] of memberLists) distinct(known.holders.get(holder), list);
  for (const [key, list] of linedMembers) distinct(key, list);
  // A distinct channel of exactly two people is their user-to-user conversation.
  for (const channel of known.channels.values()) {
    const m = channel.distinctMembers;
    if (m !== undefined && m.length === 2)
      channel.conversation = { kind: 'direct', members: [ctx.uids.of(m[0]), ctx.uids.of(m[1])] };
    else ctx.idMap.add('groups', channel.key, ctx.guids.of(channel.key));
  }

  // Sweep 2: who and what the records need.
  for (const { rel, layout } of files) {
    const where = ctx.tree.where(rel);
    for await (const e of streamEvents(ctx, rel, layout)) {
      if (e.kind === 'channel') seeUser(people, e.value.created_by, where, e.line);
      else if (e.kind === 'member') {
        const channel = resolve(ctx, known, rel, e, where);
        const member = idOf(e.value.user_id) ?? idOf(e.value.user);
        // The first member and first admin stand in as owner for a channel without created_by.
        channel.firstMember ??= member;
        if (streamScope(e.value) === 'admin') channel.firstAdmin ??= member;
        seeUser(people, e.value.user ?? e.value.user_id, where, e.line);
      } else if (e.kind === 'message') {
        const channel = resolve(ctx, known, rel, e, where);
        const mapped = mapStreamMessage(e.value, channel, known.reactions.get(str(e.value.id) ?? ''), ctx);
        if ((mapped.value.sentAt as number) > 0)
          earliest.set(rel, Math.min(earliest.get(rel) ?? Number.POSITIVE_INFINITY, mapped.value.sentAt as number));
        if (mapped.skip !== undefined) continue;
        if (mapped.senderId !== undefined) seeUser(people, e.value.user, where, e.line);
        else people.useSystem(where, e.line);
        addMessageIds(ctx.idMap, str(e.value.id) ?? '', mapped);
      }
      if (ctx.idMap.needsFlush) await ctx.idMap.flush();
    }
  }

  const per = (kind: StreamKind | 'users') =>
    files
      .filter(({ rel }) => holds.get(rel)!.has(kind))
      .map(({ rel, layout }) => eventInput(ctx, known, rel, layout, kind));
  // Messages go out oldest first: files by their first message, each in its own order.
  files.sort(
    (a, b) => (earliest.get(a.rel) ?? Infinity) - (earliest.get(b.rel) ?? Infinity) || byCodeUnit(a.rel, b.rel),
  );
  const users = [...per('users'), people.input()];
  const missing = [...known.missing].map(([key, where]) => {
    const channel = known.channels.get(key)!;
    return {
      ...where,
      value: groupRecord({
        guid: ctx.guids.of(key),
        fallbackName: channel.id,
        type: 'private',
        tags: [channel.type],
        metadata: { streamCid: key, streamType: channel.type, streamId: channel.id, from: 'messages' },
      }),
    };
  });
  const groups = [...per('channel'), listInput('stream:channels-from-messages', missing)];
  const members = per('member');
  return plansOf({ users, groups, members, messages: per('message') });
}

function listOf(lists: Map<string, string[]>, key: string): string[] {
  let list = lists.get(key);
  if (list === undefined) {
    list = [];
    lists.set(key, list);
  }
  return list;
}

function seeUser(people: People, user: unknown, file: string, line: number): void {
  const id = idOf(user);
  if (id === undefined) return;
  const o = typeof user === 'object' && user !== null ? (user as JsonObject) : {};
  people.see(id, { name: str(o.name), avatar: str(o.image), metadata: { role: str(o.role) } }, file, line);
}

/** The channel of a member or message: its v1 object's, its `cid`, or its import fields; created if unknown. */
function resolve(
  ctx: PresetContext,
  known: Known,
  rel: string,
  e: Extract<StreamEvent, { value: JsonObject }>,
  file: string,
): StreamChannel {
  const v = e.value;
  const key =
    (e.holder !== undefined ? known.holders.get(`${rel}#${e.holder}`) : undefined) ??
    str(v.cid) ??
    channelKey(str(v.channel_type), str(v.channel_id), v.channel_member_ids) ??
    'messaging:unknown';
  let channel = known.channels.get(key);
  if (channel === undefined) {
    channel = {
      key,
      type: key.slice(0, key.indexOf(':')),
      id: key.slice(key.indexOf(':') + 1),
      conversation: { kind: 'group', guid: ctx.guids.of(key) },
    };
    known.channels.set(key, channel);
    known.missing.set(key, { file, line: e.line });
    ctx.idMap.add('groups', key, ctx.guids.of(key));
  }
  return channel;
}

/** One entity's records from one file; the users input also reports the file's unplaceable bad pieces. */
function eventInput(
  ctx: PresetContext,
  known: Known,
  rel: string,
  layout: StreamLayout,
  kind: StreamKind | 'users',
): RecordInput {
  const file = ctx.tree.where(rel);
  const input: RecordInput = {
    display: `stream:${rel}#${kind === 'users' ? 'users' : kind === 'channel' ? 'groups' : `${kind}s`}`,
    async *read({ signal }): AsyncGenerator<SourceItem> {
      let ordinal = 0;
      for await (const e of streamEvents(ctx, rel, layout, signal)) {
        if (e.kind === 'problem') {
          if ((e.about ?? 'users') === kind || e.piece.fatal) {
            yield problemItem(e.piece, file, e.piece.slot ? ordinal++ : undefined);
          }
          continue;
        }
        const mine = kind === 'users' ? e.kind === 'user' : e.kind === kind;
        if (!mine) continue;
        let produced: { value: JsonObject; skip?: string; more?: JsonObject[] };
        if (e.kind === 'user') produced = { value: mapStreamUser(e.value, ctx) };
        else {
          const channel = e.kind === 'channel' ? channelOf(known, e.value) : resolve(ctx, known, rel, e, file);
          produced =
            e.kind === 'channel'
              ? mapStreamChannel(e.value, channel, ctx)
              : e.kind === 'member'
                ? mapStreamMember(e.value, channel, ctx)
                : mapStreamMessage(e.value, channel, known.reactions.get(str(e.value.id) ?? ''), ctx);
        }
        for (const one of messageItems(produced)) yield recordItem(one.value, file, e.line, ordinal++, one.skip);
      }
    },
  };
  const disk = ctx.tree.diskPath(rel);
  if (disk !== undefined) input.path = disk;
  return input;
}

function channelOf(known: Known, c: JsonObject): StreamChannel {
  return known.channels.get(channelKey(str(c.type), str(c.id), c.member_ids) ?? str(c.cid) ?? '')!;
}
