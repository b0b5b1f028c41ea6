/**
 * DiscordChatExporter JSON: one file per channel, `{"guild", "channel", "dateRange", "messages",
 * "messageCount"}`. The export has no user or member lists: users are the message authors, and a
 * channel's members are the people who wrote in it. `pull discord` adds the guild's member list
 * (`{"guildMembers", "members"}`), whose people become users even if they never wrote. Files are read
 * oldest first (by their first message), each message by message.
 */
import type { JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import type { EntityPlan } from '../../sources/plan.js';
import { SKIP, type Conversation, type PresetContext } from '../shared/context.js';
import { MEMBER_LIST_KEY } from './layout.js';
import { discordAuthor, mapDiscordMessage } from './map.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { fileInput, firstKey, listInput, objectsIn, plansOf, type ListEntry } from '../shared/inputs.js';
import type { JsonPath } from '../../sources/read-pieces.js';
import { mediaUrl, seconds, str } from '../shared/message-parts.js';
import { addMessageIds, messageItems } from '../shared/message-record.js';
import { FileSightings, People, type SeenInFile } from '../shared/people.js';
import { groupRecord, memberRecord } from '../shared/records.js';

const DESCEND = (p: JsonPath) => p.length === 0 || (p.length === 1 && p[0] === 'messages');
// DMs that stay groups (one voice only), group DMs and private threads; guild channels are public.
const PRIVATE_KINDS = new Set(['DirectTextChat', 'DirectGroupTextChat', 'GuildPrivateThread']);

interface ChannelFile {
  rel: string;
  channel: JsonObject;
  guild: JsonObject;
  line: number;
  /** Authors in order of their first message (source id -> line), for members and DMs. */
  authors: Map<string, number>;
  earliest: number;
  conversation?: Conversation;
  /** On a channel's first file: the authors of all its files (source id -> where first seen). */
  channelAuthors?: Map<string, { file: string; line: number }>;
}

export async function planDiscord(ctx: PresetContext): Promise<EntityPlan[]> {
  const files: ChannelFile[] = [];
  const memberLists: string[] = [];
  // A pull's run folders in the order they were pulled, so what a later delta adds comes after what
  // an earlier import saw: the derived lists (users, channels, members) only grow at their end.
  const jsonFiles = ctx.tree.files.filter((f) => f.toLowerCase().endsWith('.json'));
  for (const rel of [...jsonFiles].sort((a, b) => byCodeUnit(pullRunKey(a), pullRunKey(b)))) {
    const key = await firstKey(ctx, rel);
    if (key === 'guild' || key === 'channel')
      files.push({ rel, channel: {}, guild: {}, line: 0, authors: new Map(), earliest: Number.POSITIVE_INFINITY });
    else if (key === MEMBER_LIST_KEY) memberLists.push(rel);
  }
  if (files.length === 0)
    throw new InputError('INPUT_NOT_PRESET', 'not a DiscordChatExporter export: no JSON file starting with "guild"', {
      hint: 'export with DiscordChatExporter --format Json',
    });

  const people = new People(ctx);
  const runOrder = (rel: string) => pullRunKey(rel);
  for (const rel of memberLists.sort((a, b) => byCodeUnit(runOrder(a), runOrder(b))))
    people.apply(await ctx.prepass.factsOf(ctx, rel, () => gatherMembers(ctx, rel)), ctx.tree.where(rel));
  for (const f of files) {
    const facts = await ctx.prepass.factsOf(ctx, f.rel, () => gatherChannelFile(ctx, f.rel));
    [f.guild, f.channel, f.line] = [facts.guild, facts.channel, facts.line];
    f.earliest = facts.earliest ?? Number.POSITIVE_INFINITY;
    // Whoever wrote (or joined: a join event is a membership too) is a member and a user.
    for (const [author, , line] of facts.people.seen) f.authors.set(author, line);
    people.apply(facts.people, ctx.tree.where(f.rel));
  }
  files.sort(
    (a, b) => byCodeUnit(runOrder(a.rel), runOrder(b.rel)) || a.earliest - b.earliest || byCodeUnit(a.rel, b.rel),
  );
  // DiscordChatExporter's --partition writes one channel in several files (`[part 2]`), a reply
  // often in another part than its message: a channel is one group, whatever the files.
  const channels = new Map<string, ChannelFile[]>();
  for (const f of files) channels.set(channelId(f), [...(channels.get(channelId(f)) ?? []), f]);
  for (const [id, parts] of channels) {
    const authors = new Map<string, { file: string; line: number }>();
    for (const f of parts)
      for (const [author, line] of f.authors) if (!authors.has(author)) authors.set(author, { file: f.rel, line });
    const ids = [...authors.keys()];
    // A DM where both people wrote is their user-to-user conversation; with one voice it stays a group.
    const conversation: Conversation =
      parts[0].channel.type === 'DirectTextChat' && ids.length === 2
        ? { kind: 'direct', members: [ctx.uids.of(ids[0]), ctx.uids.of(ids[1])] }
        : { kind: 'group', guid: ctx.guids.of(id) };
    if (conversation.kind === 'group') ctx.idMap.add('groups', id, ctx.guids.of(id));
    for (const f of parts) f.conversation = conversation;
    parts[0].channelAuthors = authors;
  }
  const firstParts = [...channels.values()].map((parts) => parts[0]);

  return plansOf({
    users: [people.input()],
    groups: [
      listInput(
        'discord:channels',
        firstParts.map((f) => channelEntry(ctx, f)),
      ),
    ],
    // Everyone who wrote in a group channel is a participant; DCE records no roles or join times.
    members: [
      listInput(
        'discord:members-from-messages',
        firstParts
          .filter((f) => f.conversation!.kind === 'group')
          .flatMap((f) =>
            [...f.channelAuthors!].map(([author, at]) => ({
              rel: at.file,
              file: ctx.tree.where(at.file),
              line: at.line,
              value: memberRecord({ guid: ctx.guids.of(channelId(f)), uid: ctx.uids.of(author), scope: 'participant' }),
            })),
          )
          // A pull's later run adds members at the end (a stable sort keeps each run's own order).
          .sort((a, b) => byCodeUnit(runOrder(a.rel), runOrder(b.rel))),
      ),
    ],
    messages: files.map((f) =>
      fileInput({
        ctx,
        rel: f.rel,
        display: `discord:${f.rel}`,
        descend: DESCEND,
        reportProblems: true,
        accept: (path) => path[0] === 'messages',
        map: (m) => messageItems(mapDiscordMessage(m, f.conversation!, ctx)),
      }),
    ),
  });
}

const channelId = (f: ChannelFile): string => str(f.channel.id) ?? f.rel;

/**
 * The guild's members a pull wrote: users, even those who never wrote. Kept between runs as a
 * channel file's facts are, so a run reads only the member lists of runs it has not seen.
 */
async function gatherMembers(ctx: PresetContext, rel: string): Promise<SeenInFile> {
  const sightings = new FileSightings();
  for await (const { value, line, path } of objectsIn(ctx, rel, DESCEND_MEMBERS)) {
    if (path[0] !== 'members') continue;
    const author = discordAuthor({ author: value }, ctx);
    if (author === undefined || (author.isBot && !ctx.options.includeBots)) continue;
    const metadata = { ...author.person.metadata, joinedAt: str(value.joinedAt) };
    sightings.see(author.id, { ...author.person, metadata }, line);
  }
  return sightings.facts();
}

/** What the pre-pass learns of one channel file (kept between runs: prepass-cache.ts). */
interface ChannelFileFacts {
  guild: JsonObject;
  channel: JsonObject;
  /** The line of the channel object; 0 without one. */
  line: number;
  /** Its authors (bots only with includeBots), each at their first message, first seen first. */
  people: SeenInFile;
  /** The first message's time (UNIX seconds); null without one. */
  earliest: number | null;
}

async function gatherChannelFile(ctx: PresetContext, rel: string): Promise<ChannelFileFacts> {
  const facts: ChannelFileFacts = { guild: {}, channel: {}, line: 0, people: { seen: [] }, earliest: null };
  const sightings = new FileSightings();
  let earliest = Number.POSITIVE_INFINITY;
  for await (const { value, line, path } of objectsIn(ctx, rel, DESCEND)) {
    if (path[0] === 'guild') facts.guild = value;
    else if (path[0] === 'channel') [facts.channel, facts.line] = [value, line];
    else if (path[0] === 'messages') {
      earliest = Math.min(earliest, seconds(value.timestamp) ?? earliest);
      const author = discordAuthor(value, ctx);
      if (author !== undefined && !(author.isBot && !ctx.options.includeBots)) {
        // Met here, before the people the message names, as a reading of the file meets them.
        ctx.uids.of(author.id);
        sightings.see(author.id, author.person, line);
      }
      const mapped = mapDiscordMessage(value, { kind: 'group', guid: '' }, ctx);
      if (mapped.skip === undefined) addMessageIds(ctx.idMap, str(value.id) ?? '', mapped);
    }
  }
  facts.people = sightings.facts();
  facts.earliest = Number.isFinite(earliest) ? earliest : null;
  return facts;
}

const DESCEND_MEMBERS = (p: JsonPath) => p.length === 0 || (p.length === 1 && p[0] === 'members');

/**
 * The pull run a file was written by (`full-<stamp>/...`, `delta-<stamp>/...`: its stamp, which sorts
 * in time), or '' for a file of an exporter's own folder.
 */
function pullRunKey(rel: string): string {
  const slash = rel.indexOf('/');
  const m = slash < 0 ? null : /^(?:full|delta)-(.+)$/.exec(rel.slice(0, slash));
  return m === null ? '' : m[1];
}

function channelEntry(ctx: PresetContext, f: ChannelFile): ListEntry {
  const c = f.channel;
  const kind = str(c.type) ?? 'GuildTextChat';
  const first = f.channelAuthors?.keys().next().value;
  const value = groupRecord({
    guid: ctx.guids.of(channelId(f)),
    name: str(c.name),
    fallbackName: channelId(f),
    type: PRIVATE_KINDS.has(kind) ? 'private' : 'public',
    icon: mediaUrl(f.guild.iconUrl, ctx.options.mediaBaseUrl),
    // DCE records no creator or roles: the first to write owns the group.
    owner: first === undefined ? undefined : ctx.uids.of(first),
    metadata: {
      discordChannelId: channelId(f),
      discordType: kind,
      guildId: str(f.guild.id),
      guildName: str(f.guild.name),
      category: str(c.category),
      categoryId: str(c.categoryId),
      topic: str(c.topic),
    },
  });
  return {
    value,
    file: ctx.tree.where(f.rel),
    line: f.line,
    skip: f.conversation!.kind === 'direct' ? SKIP.direct : undefined,
  };
}
