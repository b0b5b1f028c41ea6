/**
 * Sendbird Data Export (a .zip or its unzipped folder of JSON files). Files are recognised by their
 * top-level key, not their names: `messages` (+ `channel`) for messages, `group_channels`,
 * `open_channels` or `channels` for channels, `active_users`, `deactivated_users` or `users` for users.
 * Messages files are read oldest first (by their first message), each record by record.
 */
import type { JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan } from '../../sources/plan.js';
import { SKIP, type PresetContext } from '../shared/context.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { fileInput, firstKey, listInput, objectsIn, plansOf, type ListEntry } from '../shared/inputs.js';
import type { JsonPath } from '../../sources/read-pieces.js';
import { seconds, str } from '../shared/message-parts.js';
import { addMessageIds, messageItems } from '../shared/message-record.js';
import { FileSightings, People, type SeenInFile } from '../shared/people.js';
import { isObject } from '../shared/items.js';
import { groupRecord } from '../shared/records.js';
import {
  mapSendbirdChannel,
  mapSendbirdMembers,
  mapSendbirdMessage,
  mapSendbirdUser,
  sendbirdMembers,
  type SendbirdChannel,
} from './map.js';
import { CHANNEL_KEYS, USER_KEYS } from './layout.js';

const under = (keys: ReadonlySet<string>) => (p: JsonPath) =>
  p.length === 0 || (p.length === 1 && keys.has(String(p[0])));
const USERS_DESCEND = under(USER_KEYS);
const CHANNELS_DESCEND = under(CHANNEL_KEYS);
const MESSAGES_DESCEND = under(new Set(['messages']));

export async function planSendbird(ctx: PresetContext): Promise<EntityPlan[]> {
  const kinds = { users: [] as string[], channels: [] as string[], messages: [] as string[] };
  for (const rel of ctx.tree.files.filter((f) => f.toLowerCase().endsWith('.json'))) {
    const key = String(await firstKey(ctx, rel));
    if (USER_KEYS.has(key)) kinds.users.push(rel);
    else if (CHANNEL_KEYS.has(key)) kinds.channels.push(rel);
    else if (key === 'messages' || key === 'channel') kinds.messages.push(rel);
  }
  kinds.users.sort(byPullRun);
  kinds.channels.sort(byPullRun);
  if (kinds.users.length + kinds.channels.length + kinds.messages.length === 0) {
    const csv = ctx.tree.files.some((f) => f.toLowerCase().endsWith('.csv'));
    throw new InputError(
      'INPUT_NOT_PRESET',
      'not a Sendbird data export: no JSON file with "messages", "group_channels", "open_channels" or "active_users"',
      {
        hint: csv ? 'the CSV export is not supported: export again with format "json"' : undefined,
      },
    );
  }

  const people = new People(ctx);
  for (const rel of kinds.users) {
    for await (const { value } of objectsIn(ctx, rel, USERS_DESCEND))
      if (str(value.user_id)) people.list(str(value.user_id)!, str(value.nickname));
  }

  const channels = new Map<string, SendbirdChannel>();
  // The channels file each channel was first met in, and its group as mapped there: `pull` writes a
  // channel again in a later run's folder with only its new members, and the group stays as first
  // pulled (sent again as it was, it is an exact copy, skipped as such; its members still count).
  const first = new Map<string, { rel: string; group: ReturnType<typeof mapSendbirdChannel> }>();
  const register = (c: JsonObject, open: boolean, file: string, line: number, rel?: string): SendbirdChannel => {
    const url = str(c.channel_url) ?? '';
    const members = sendbirdMembers(c);
    const listed = new Map(
      (Array.isArray(c.members) ? c.members.filter(isObject) : []).map((m) => [str(m.user_id), m]),
    );
    for (const m of members) {
      const o = listed.get(m.userId);
      people.see(m.userId, { name: str(o?.nickname), avatar: str(o?.profile_url) }, file, line);
    }
    const creator = isObject(c.created_by) ? str(c.created_by.user_id) : undefined;
    if (creator !== undefined) people.see(creator, { name: str((c.created_by as JsonObject).nickname) }, file, line);
    const before = channels.get(url);
    if (before !== undefined && rel !== undefined && first.get(url)?.rel !== rel) return before;
    // A distinct channel of exactly two members is their user-to-user conversation.
    const direct =
      !open && c.is_distinct === true && members.length === 2 && Array.isArray(c.members) && c.members.length === 2;
    const channel: SendbirdChannel = {
      url,
      open,
      createdAt: seconds(c.created_at),
      conversation: direct
        ? { kind: 'direct', members: [ctx.uids.of(members[0].userId), ctx.uids.of(members[1].userId)] }
        : { kind: 'group', guid: ctx.guids.of(url) },
    };
    if (!direct) ctx.idMap.add('groups', url, ctx.guids.of(url));
    channels.set(url, channel);
    if (rel !== undefined && !first.has(url)) first.set(url, { rel, group: mapSendbirdChannel(c, channel, ctx) });
    return channel;
  };
  for (const rel of kinds.channels) {
    for await (const { value, line, path } of objectsIn(ctx, rel, CHANNELS_DESCEND)) {
      register(value, path[0] === 'open_channels' || value.channel_type === 'open', ctx.tree.where(rel), line, rel);
    }
  }

  // Messages files: senders, the file's own channel object, references, the first message's time.
  const fileChannel = new Map<string, string>();
  const fromMessageFiles: Array<{ value: JsonObject; channel: SendbirdChannel; file: string; line: number }> = [];
  const referenced = new Map<string, { file: string; line: number }>();
  const firstAt = new Map<string, number>();
  for (const rel of kinds.messages) {
    const where = ctx.tree.where(rel);
    const facts = await ctx.prepass.factsOf(ctx, rel, () => gatherMessagesFile(ctx, rel));
    // In the file's own order: the people its channel object names, then those seen after it.
    const [before, after] = splitAt(facts.people, facts.channel?.line);
    people.apply(before, where);
    if (facts.channel !== undefined) {
      const { value, line } = facts.channel;
      const url = str(value.channel_url) ?? '';
      fileChannel.set(rel, url);
      if (!channels.has(url))
        fromMessageFiles.push({
          value,
          channel: register(value, value.channel_type === 'open', where, line),
          file: where,
          line,
        });
    }
    people.apply(after, where);
    for (const [url, line] of facts.referenced) if (!referenced.has(url)) referenced.set(url, { file: where, line });
    firstAt.set(rel, facts.earliest ?? Number.POSITIVE_INFINITY);
  }
  const missing = [...referenced].filter(([url]) => !channels.has(url));
  for (const [url] of missing) {
    channels.set(url, { url, open: false, conversation: { kind: 'group', guid: ctx.guids.of(url) } });
    ctx.idMap.add('groups', url, ctx.guids.of(url));
  }

  const channelOf = (c: JsonObject) => channels.get(str(c.channel_url) ?? '')!;
  const messageFiles = [...kinds.messages].sort((a, b) => firstAt.get(a)! - firstAt.get(b)! || byCodeUnit(a, b));
  return plansOf({
    users: [
      ...kinds.users.map((rel) =>
        fileInput({
          ctx,
          rel,
          display: `sendbird:${rel}`,
          descend: USERS_DESCEND,
          reportProblems: true,
          map: (u, _l, path) => {
            const value = mapSendbirdUser(u, path[0] === 'deactivated_users', ctx);
            // Sendbird keeps no e-mail field of its own: an export carries it at the top or in metadata.
            const email = str(u.email) ?? (isObject(u.metadata) ? str(u.metadata.email) : undefined);
            return [{ value, email }];
          },
        }),
      ),
      people.input(),
    ],
    groups: [
      ...kinds.channels.map((rel) =>
        fileInput({
          ctx,
          rel,
          display: `sendbird:${rel}`,
          descend: CHANNELS_DESCEND,
          reportProblems: true,
          map: (c) => {
            const earlier = first.get(str(c.channel_url) ?? '');
            return [
              earlier !== undefined && earlier.rel !== rel ? earlier.group : mapSendbirdChannel(c, channelOf(c), ctx),
            ];
          },
        }),
      ),
      listInput(
        'sendbird:channels-from-messages-files',
        fromMessageFiles.map((f) => ({ ...at(f), ...mapSendbirdChannel(f.value, f.channel, ctx) })),
      ),
      listInput(
        'sendbird:channels-from-messages',
        missing.map(([url, where]) => ({
          ...where,
          value: groupRecord({
            guid: ctx.guids.of(url),
            fallbackName: url,
            type: 'private',
            metadata: { from: 'messages' },
          }),
        })),
      ),
    ],
    members: [
      ...kinds.channels.map((rel) =>
        fileInput({
          ctx,
          rel,
          display: `sendbird:${rel}#members`,
          descend: CHANNELS_DESCEND,
          reportProblems: false,
          map: (c) => mapSendbirdMembers(c, channelOf(c), ctx),
        }),
      ),
      listInput(
        'sendbird:channels-from-messages-files#members',
        fromMessageFiles.flatMap((f) =>
          mapSendbirdMembers(f.value, f.channel, ctx).map((m): ListEntry => ({ ...at(f), ...m })),
        ),
      ),
    ],
    messages: messageFiles.map((rel) =>
      fileInput({
        ctx,
        rel,
        display: `sendbird:${rel}`,
        descend: MESSAGES_DESCEND,
        reportProblems: true,
        accept: (path) => path[0] === 'messages',
        map: (m) => {
          const channel = channels.get(str(m.channel_url) ?? fileChannel.get(rel) ?? '');
          const mapped = mapSendbirdMessage(m, channel ?? placeholderChannel, ctx);
          return messageItems(channel === undefined ? { ...mapped, skip: SKIP.noConversation } : mapped);
        },
      }),
    ),
  });
}

const at = (f: { file: string; line: number }) => ({ file: f.file, line: f.line });

/**
 * The folders `chat-migrate pull` writes, `full-<UTC stamp>` and `delta-<UTC stamp>`, in the order
 * they were pulled (their stamps), whatever their kind; other paths as they are.
 */
const pullRunKey = (rel: string) => rel.replace(/^(?:full|delta)-(?=\d)/, '');
const byPullRun = (a: string, b: string) => byCodeUnit(pullRunKey(a), pullRunKey(b));

/** For the pre-pass, where only the sender and skip matter, not the receiver. */
const placeholderChannel: SendbirdChannel = { url: '', open: false, conversation: { kind: 'group', guid: 'unknown' } };

/** What the pre-pass learns of one messages file (kept between runs: prepass-cache.ts). */
interface MessagesFileFacts {
  /** The file's `channel` object, when it has one. */
  channel?: { value: JsonObject; line: number };
  /** Channels the messages name, each at its first line. */
  referenced: Array<[url: string, line: number]>;
  people: SeenInFile;
  /** The first message's time (UNIX seconds); null without one. */
  earliest: number | null;
}

async function gatherMessagesFile(ctx: PresetContext, rel: string): Promise<MessagesFileFacts> {
  const facts: MessagesFileFacts = { referenced: [], people: { seen: [] }, earliest: null };
  const sightings = new FileSightings();
  const named = new Set<string>();
  let fileUrl: string | undefined;
  let earliest = Number.POSITIVE_INFINITY;
  for await (const { value, line, path } of objectsIn(ctx, rel, MESSAGES_DESCEND)) {
    if (path[0] === 'channel') {
      facts.channel = { value, line };
      fileUrl = str(value.channel_url) ?? '';
      continue;
    }
    const url = str(value.channel_url) ?? fileUrl;
    if (url !== undefined && !named.has(url)) {
      named.add(url);
      facts.referenced.push([url, line]);
    }
    const mapped = mapSendbirdMessage(value, placeholderChannel, ctx);
    earliest = Math.min(earliest, seconds(value.created_at) ?? earliest);
    if (mapped.skip !== undefined) continue;
    if (mapped.system) sightings.useSystem(line);
    else if (mapped.senderId !== undefined)
      sightings.see(
        mapped.senderId,
        {
          name: isObject(value.user) ? str(value.user.nickname) : undefined,
          avatar: isObject(value.user) ? str(value.user.profile_url) : undefined,
        },
        line,
      );
    addMessageIds(ctx.idMap, str(value.message_id) ?? '', mapped);
  }
  facts.people = sightings.facts();
  facts.earliest = Number.isFinite(earliest) ? earliest : null;
  return facts;
}

/** A file's sightings before a line and from it on. */
function splitAt(people: SeenInFile, line: number | undefined): [SeenInFile, SeenInFile] {
  if (line === undefined) return [people, { seen: [] }];
  const before = people.seen.filter(([, , at]) => at < line);
  const after = people.seen.filter(([, , at]) => at >= line);
  const system = people.system;
  return [
    { seen: before, system: system !== undefined && system < line ? system : undefined },
    { seen: after, system: system !== undefined && system >= line ? system : undefined },
  ];
}
