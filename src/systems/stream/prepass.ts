/**
 * The stream preset's two sweeps over each file, as facts of that file alone, so a run takes them
 * from the pre-pass cache (prepass-cache.ts) for a file it has seen and reads only new or changed
 * files. The outline (sweep 1) is the file's own; the sightings (sweep 2) also depend on what other
 * files declared (`needsDependOn`), so they are read again when that has changed.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../entities/types.js';
import type { PresetContext } from '../shared/context.js';
import { seconds, str } from '../shared/message-parts.js';
import { addMessageIds } from '../shared/message-record.js';
import { FileSightings, type People, type SeenInFile } from '../shared/people.js';
import { channelKey, idOf, mapStreamMessage, streamScope, type ReactionSeen, type StreamChannel } from './map.js';
import { streamEvents, type StreamEvent, type StreamKind, type StreamLayout } from './read.js';

export interface Known {
  channels: Map<string, StreamChannel>;
  /** `rel#holder` -> channel key: which channel a v1 object's messages and members belong to. */
  holders: Map<string, string>;
  reactions: Map<string, ReactionSeen[]>;
  /** Channels records refer to but no file declares: created from what the references say. */
  missing: Map<string, { file: string; line: number }>;
}

/** A channel a file declares, as sweep 1 keeps it (its guid is the run's). */
type DeclaredChannel = Omit<StreamChannel, 'conversation'> & { holder?: number };

/** Sweep 1's facts of a file: what it holds, and what the other files' records need of it. */
export interface FileOutline {
  kinds: Array<StreamKind | 'users'>;
  /** Its user items: source id and name, in order. */
  users: Array<[id: string, name: string | null]>;
  channels: DeclaredChannel[];
  /** The first three member ids of each member list: a v1 object's (by holder) or a channel's (by key). */
  held: Array<[holder: number, ids: string[]]>;
  lined: Array<[key: string, ids: string[]]>;
  reactions: Array<[messageId: string, reaction: ReactionSeen]>;
  /** Channels of its messages without a time of their own: they take their channel's creation's. */
  undated: string[];
}

/** Sweep 2's facts of a file: who and which channels its records need. */
export interface FileNeeds {
  people: SeenInFile;
  /** Channels its members and messages name, each at its first line. */
  named: Array<[key: string, line: number]>;
  /** Per channel, its first member and first owner/admin member here. */
  firstMember: Array<[key: string, sourceId: string]>;
  firstAdmin: Array<[key: string, sourceId: string]>;
  /** The first message's time (UNIX seconds); null without one. */
  earliest: number | null;
}

const MEMBERS_KEPT = 3;

export async function outlineFile(ctx: PresetContext, rel: string, layout: StreamLayout): Promise<FileOutline> {
  const kinds = new Set<StreamKind | 'users'>();
  const out: FileOutline = { kinds: [], users: [], channels: [], held: [], lined: [], reactions: [], undated: [] };
  const held = new Map<number, string[]>();
  const lined = new Map<string, string[]>();
  // Their channel is known once the file is read: a v1 object's may come after its messages.
  const undated: Placed[] = [];
  const holders = new Map<string, string>();
  for await (const e of streamEvents(ctx, rel, layout)) {
    kinds.add(e.kind === 'user' ? 'users' : e.kind === 'problem' ? (e.about ?? 'users') : e.kind);
    if (e.kind === 'user') out.users.push([idOf(e.value) ?? '', str(e.value.name) ?? null]);
    else if (e.kind === 'channel') {
      const channel = declared(e.value, e.holder);
      out.channels.push(channel);
      if (e.holder !== undefined) holders.set(`${rel}#${e.holder}`, channel.key);
    } else if (e.kind === 'message' && seconds(e.value.created_at) === undefined) undated.push(e);
    else if (e.kind === 'member') {
      // A v1 object's members belong to its channel (known once read); a v2 line names its channel.
      const v = e.value;
      const list =
        e.holder !== undefined
          ? listOf(held, e.holder)
          : listOf(lined, str(v.cid) ?? channelKey(str(v.channel_type), str(v.channel_id), undefined) ?? '');
      addMember(list, idOf(v.user_id) ?? idOf(v.user));
    } else if (e.kind === 'reaction') {
      const v = e.value;
      const reaction: ReactionSeen = { type: str(v.type) ?? '' };
      const user = idOf(v.user_id) ?? idOf(v.user);
      const at = seconds(v.created_at);
      if (user !== undefined) reaction.user = user;
      if (at !== undefined) reaction.at = at;
      out.reactions.push([str(v.message_id) ?? '', reaction]);
    }
  }
  out.kinds = [...kinds];
  out.undated = [...new Set(undated.map((e) => keyOf(holders, rel, e)))];
  out.held = [...held];
  out.lined = [...lined];
  return out;
}

function declared(c: JsonObject, holder: number | undefined): DeclaredChannel {
  const key = channelKey(str(c.type), str(c.id), c.member_ids) ?? str(c.cid) ?? '';
  const channel: DeclaredChannel = {
    key,
    type: str(c.type) ?? 'messaging',
    id: str(c.id) ?? key.slice(key.indexOf(':') + 1),
  };
  const createdAt = seconds(c.created_at);
  if (createdAt !== undefined) channel.createdAt = createdAt;
  if (Array.isArray(c.member_ids)) channel.distinctMembers = c.member_ids.map(String);
  if (holder !== undefined) channel.holder = holder;
  return channel;
}

/** A file's outline into what the run knows, as if its events came one by one. */
export function applyOutline(
  ctx: PresetContext,
  rel: string,
  o: FileOutline,
  known: Known,
  people: People,
  members: { held: Map<string, string[]>; lined: Map<string, string[]> },
): void {
  for (const [id, name] of o.users) people.list(id, name ?? undefined);
  for (const { holder, ...c } of o.channels) {
    if (holder !== undefined) known.holders.set(`${rel}#${holder}`, c.key);
    known.channels.set(c.key, { ...c, conversation: { kind: 'group', guid: ctx.guids.of(c.key) } });
  }
  // A list is kept even with no member id in it: a `!members-` channel then has no members.
  for (const [holder, ids] of o.held) addMembers(listOf(members.held, `${rel}#${holder}`), ids);
  for (const [key, ids] of o.lined) addMembers(listOf(members.lined, key), ids);
  for (const [messageId, reaction] of o.reactions) {
    const list = known.reactions.get(messageId) ?? [];
    list.push(reaction);
    known.reactions.set(messageId, list);
  }
}

/** Up to three: enough to tell two people from a group. Pulls may list a member again in a delta. */
function addMember(list: string[], uid: string | undefined): void {
  if (uid !== undefined && list.length < MEMBERS_KEPT && !list.includes(uid)) list.push(uid);
}

function addMembers(list: string[], uids: string[]): void {
  for (const uid of uids) addMember(list, uid);
}

function listOf<K>(lists: Map<K, string[]>, key: K): string[] {
  let list = lists.get(key);
  if (list === undefined) {
    list = [];
    lists.set(key, list);
  }
  return list;
}

/** For sweep 2, where only the sender, the time and the skip matter, not the receiver. */
const placeholder = { kind: 'group', guid: 'unknown' } as const;

/** Sweep 2 over one file: reads `known` (all of sweep 1), changes nothing but its message lines of the id map. */
export async function needsOf(ctx: PresetContext, rel: string, layout: StreamLayout, known: Known): Promise<FileNeeds> {
  const sightings = new FileSightings();
  const named = new Map<string, number>();
  const firstMember = new Map<string, string>();
  const firstAdmin = new Map<string, string>();
  let earliest = Number.POSITIVE_INFINITY;
  for await (const e of streamEvents(ctx, rel, layout)) {
    if (e.kind === 'channel') seeUser(sightings, e.value.created_by, e.line);
    else if (e.kind === 'member') {
      const key = keyOf(known.holders, rel, e);
      if (!named.has(key)) named.set(key, e.line);
      const member = idOf(e.value.user_id) ?? idOf(e.value.user);
      // The first member and first admin stand in as owner for a channel without created_by.
      if (member !== undefined && !firstMember.has(key)) firstMember.set(key, member);
      if (member !== undefined && streamScope(e.value) === 'admin' && !firstAdmin.has(key)) firstAdmin.set(key, member);
      seeUser(sightings, e.value.user ?? e.value.user_id, e.line);
    } else if (e.kind === 'message') {
      const key = keyOf(known.holders, rel, e);
      if (!named.has(key)) named.set(key, e.line);
      const channel = known.channels.get(key) ?? unknownChannel(key);
      const mapped = mapStreamMessage(e.value, channel, known.reactions.get(str(e.value.id) ?? ''), ctx);
      if ((mapped.value.sentAt as number) > 0) earliest = Math.min(earliest, mapped.value.sentAt as number);
      if (mapped.skip !== undefined) continue;
      if (mapped.senderId !== undefined) seeUser(sightings, e.value.user, e.line);
      else sightings.useSystem(e.line);
      addMessageIds(ctx.idMap, str(e.value.id) ?? '', mapped);
    }
    if (ctx.idMap.needsFlush) await ctx.idMap.flush();
  }
  return {
    people: sightings.facts(),
    named: [...named],
    firstMember: [...firstMember],
    firstAdmin: [...firstAdmin],
    earliest: Number.isFinite(earliest) ? earliest : null,
  };
}

/**
 * What a file's sightings take from other files: the reactions (a message without a time takes its
 * first reaction's), as `reactions` digests them, and the creation of its undated messages' channels.
 */
export function needsDependOn(outline: FileOutline, known: Known, reactions: string): unknown {
  if (!outline.kinds.includes('message')) return undefined;
  return [reactions, outline.undated.map((key) => known.channels.get(key)?.createdAt ?? null)];
}

/** A digest of the export's reactions: the same while no reaction item changed. */
export function reactionsMark(known: Known): string {
  if (known.reactions.size === 0) return '';
  return createHash('sha256')
    .update(JSON.stringify([...known.reactions]))
    .digest('hex')
    .slice(0, 32);
}

/** A file's sightings into what the run knows, in the order its records gave them. */
export function applyNeeds(ctx: PresetContext, rel: string, needs: FileNeeds, known: Known, people: People): void {
  const where = ctx.tree.where(rel);
  for (const [key, line] of needs.named) channelFor(ctx, known, key, where, line);
  for (const [key, id] of needs.firstMember) known.channels.get(key)!.firstMember ??= id;
  for (const [key, id] of needs.firstAdmin) known.channels.get(key)!.firstAdmin ??= id;
  people.apply(needs.people, where);
}

function seeUser(sightings: FileSightings, user: unknown, line: number): void {
  const id = idOf(user);
  if (id === undefined) return;
  const o = typeof user === 'object' && user !== null ? (user as JsonObject) : {};
  sightings.see(id, { name: str(o.name), avatar: str(o.image), metadata: { role: str(o.role) } }, line);
}

export type Placed = Extract<StreamEvent, { value: JsonObject }>;

/** The channel key of a member or message: its v1 object's (`holders`), its `cid`, or its import fields. */
export function keyOf(holders: Map<string, string>, rel: string, e: Placed): string {
  const v = e.value;
  return (
    (e.holder !== undefined ? holders.get(`${rel}#${e.holder}`) : undefined) ??
    str(v.cid) ??
    channelKey(str(v.channel_type), str(v.channel_id), v.channel_member_ids) ??
    'messaging:unknown'
  );
}

/** The channel of `key`; one no file declares is made from the reference (`file`, `line`). */
export function channelFor(ctx: PresetContext, known: Known, key: string, file: string, line: number): StreamChannel {
  let channel = known.channels.get(key);
  if (channel === undefined) {
    channel = { ...unknownChannel(key), conversation: { kind: 'group', guid: ctx.guids.of(key) } };
    known.channels.set(key, channel);
    known.missing.set(key, { file, line });
    ctx.idMap.add('groups', key, ctx.guids.of(key));
  }
  return channel;
}

function unknownChannel(key: string): StreamChannel {
  return { key, type: key.slice(0, key.indexOf(':')), id: key.slice(key.indexOf(':') + 1), conversation: placeholder };
}
