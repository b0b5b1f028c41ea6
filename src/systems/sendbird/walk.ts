/**
 * The walk of a Sendbird app: users (active, then deactivated), group channels with their members,
 * open channels, then each channel's messages, `ctx.concurrency` channels at a time. Every file is a
 * `ctx.pages` stream, so a killed pull resumes from its last page; the channel list is remembered
 * with its pages, so the messages step finds it after a resume.
 */
import { SourceError } from '../../errors.js';
import type { SourceHttp } from '../../http/source-client.js';
import type { Page, PullContext } from '../shared/pull-types.js';
import {
  type ChannelType,
  channelsPath,
  isObject,
  listPage,
  MESSAGES_LIMIT,
  membersPath,
  messagesFrom,
  msOf,
  type SendbirdObject,
  usersPath,
} from './api.js';
import {
  activeUsersStream,
  type ChannelFact,
  channelsStream,
  deactivatedUsersStream,
  messagesStream,
} from './layout.js';

const CHANNEL_FACT = 'channel:';

/** Group channels: every kind an API token sees (Sendbird's "List group channels" filters). */
const GROUP_QUERY = {
  show_member: true,
  show_empty: true,
  show_frozen: true,
  public_mode: 'all',
  distinct_mode: 'all',
  super_mode: 'all',
  order: 'chronological',
};

/** Members of both states: the members route lists only activated ones unless asked (Sendbird's OpenAPI). */
const MEMBERS_QUERY = { member_active_mode_filter: 'all' };

/**
 * Where a token-paged list stands: Sendbird's token for the next page, the id of the last item written
 * and how many were written. A plain string is a token journalled before these were kept.
 */
type ListCursor = { token: string; last?: string; read: number } | string;

/**
 * The page of a list after `cursor`. A token that expired while the pull was stopped cannot be
 * replayed: the list is read again from its start and goes on after the last item written (or, when
 * that item is gone from the list, after as many items as were written), so nothing is written twice.
 */
async function resumableList(
  ctx: PullContext,
  path: string,
  key: string,
  query: Record<string, string | boolean>,
  cursor: ListCursor | undefined,
  idOf: (item: SendbirdObject) => unknown,
): Promise<{ items: SendbirdObject[]; next?: ListCursor }> {
  const at = typeof cursor === 'string' ? { token: cursor, read: 0 } : cursor;
  let page = await listPage(ctx.http, path, key, query, at?.token);
  let items = page.items;
  if (page.expired && at !== undefined) {
    ctx.warning(`sendbird: GET ${path}: the saved page token expired; the list is read again from its start`);
    const seen: SendbirdObject[] = [];
    let token: string | undefined;
    for (;;) {
      page = await listPage(ctx.http, path, key, query, token);
      if (page.expired) throw new SourceError('SOURCE_REFUSED', `sendbird: GET ${path}: a fresh page token expired`);
      const found = at.last === undefined ? -1 : page.items.findIndex((i) => String(idOf(i)) === at.last);
      if (found >= 0) {
        items = page.items.slice(found + 1);
        break;
      }
      seen.push(...page.items);
      if (page.next === undefined) {
        items = seen.slice(at.read);
        break;
      }
      token = page.next;
    }
  }
  const read = (at?.read ?? 0) + items.length;
  const last = items.length > 0 ? String(idOf(items[items.length - 1])) : at?.last;
  if (page.next === undefined) return { items };
  return { items, next: last === undefined ? { token: page.next, read } : { token: page.next, last, read } };
}

export async function walkSendbird(ctx: PullContext): Promise<void> {
  for (const [stream, mode] of [
    [activeUsersStream, 'activated'],
    [deactivatedUsersStream, 'deactivated'],
  ] as const) {
    await ctx.pages<ListCursor>(stream, (cursor) =>
      resumableList(ctx, usersPath, 'users', { active_mode: mode }, cursor, (u) => u.user_id),
    );
  }
  const known = channelFacts(ctx);
  for (const type of ['group_channels', 'open_channels'] as const) {
    await ctx.pages<ListCursor>(channelsStream(type), (cursor) => channelsPage(ctx, type, cursor, known));
  }
  const channels = [...channelFacts(ctx).values()];
  await ctx.eachChannel(channels, (channel) => pullMessages(ctx, channel));
}

/** The channels remembered by this pull and earlier ones, the latest fact of each. */
function channelFacts(ctx: PullContext): Map<string, ChannelFact> {
  const facts = new Map<string, ChannelFact>();
  for (const [, value] of ctx.remembered(CHANNEL_FACT)) {
    const fact = value as ChannelFact;
    facts.set(fact.url, fact);
  }
  return facts;
}

/**
 * One page of channels, each group channel with all its members (the list shows only some of a large
 * channel's: the rest are paged from its members route within this page). A delta writes the channels
 * created since the cutoff or unknown to earlier pulls whole, and a known channel only with its new
 * members (the preset keeps the channel as first pulled).
 */
async function channelsPage(
  ctx: PullContext,
  type: ChannelType,
  cursor: ListCursor | undefined,
  known: ReadonlyMap<string, ChannelFact>,
): Promise<Page<ListCursor>> {
  const query = type === 'group_channels' ? GROUP_QUERY : { show_frozen: true };
  const page = await resumableList(ctx, channelsPath(type), 'channels', query, cursor, (c) => c.channel_url);
  const items: SendbirdObject[] = [];
  const remember: Array<[string, ChannelFact]> = [];
  for (const listed of page.items) {
    const channel = type === 'group_channels' ? await withAllMembers(ctx.http, listed) : listed;
    const fact = factOf(type, channel);
    if (fact === undefined) continue;
    remember.push([`${CHANNEL_FACT}${fact.url}`, fact]);
    const written = deltaOf(ctx, channel, fact, known.get(fact.url));
    if (written !== undefined) items.push(written);
  }
  const members = items.reduce((n, c) => n + memberCount(c), 0);
  const nested = { members };
  return page.next === undefined ? { items, remember, nested } : { items, remember, nested, next: page.next };
}

/** A channel's member records as the preset reads them: its members, operators and banned users, each once. */
function memberCount(channel: SendbirdObject): number {
  const ids = new Set<string>();
  for (const list of [
    channel.members,
    channel.operators,
    channel.operator_ids,
    channel.banned_list,
    channel.banned_users,
  ])
    for (const x of Array.isArray(list) ? list : []) {
      const id = isObject(x) ? (x.user_id ?? (isObject(x.user) ? x.user.user_id : undefined)) : x;
      if (typeof id === 'string' && id !== '') ids.add(id);
    }
  return ids.size;
}

function deltaOf(
  ctx: PullContext,
  channel: SendbirdObject,
  fact: ChannelFact,
  before: ChannelFact | undefined,
): SendbirdObject | undefined {
  const { since } = ctx;
  if (since.kind === 'full' || before === undefined) return channel;
  if ((msOf(channel.created_at) ?? 0) >= since.listCutoffMs) return channel;
  const had = new Set(before.members ?? []);
  const added = (fact.members ?? []).filter((id) => !had.has(id));
  if (added.length === 0) return undefined;
  const members = (channel.members as unknown[]).filter((m) => isObject(m) && added.includes(String(m.user_id)));
  return { ...channel, members };
}

function factOf(type: ChannelType, channel: SendbirdObject): ChannelFact | undefined {
  if (typeof channel.channel_url !== 'string' || channel.channel_url === '') return undefined;
  const fact: ChannelFact = { type, url: channel.channel_url };
  if (typeof channel.name === 'string' && channel.name !== '') fact.name = channel.name;
  if (Array.isArray(channel.members)) {
    fact.members = channel.members.filter(isObject).map((m) => String(m.user_id));
  }
  return fact;
}

/** The channel with every member: the list's own when complete, else its members route, page by page. */
async function withAllMembers(http: SourceHttp, channel: SendbirdObject): Promise<SendbirdObject> {
  const listed = Array.isArray(channel.members) ? channel.members : undefined;
  const count = typeof channel.member_count === 'number' ? channel.member_count : undefined;
  if (listed !== undefined && (count === undefined || listed.length >= count)) return channel;
  const members: SendbirdObject[] = [];
  let token: string | undefined;
  do {
    const page = await listPage(http, membersPath(String(channel.channel_url)), 'members', MEMBERS_QUERY, token);
    members.push(...page.items);
    token = page.next;
  } while (token !== undefined && members.length < 1_000_000);
  return { ...channel, members };
}

/** Where a channel's messages stand: the last page's newest time, and the ids met at that very millisecond. */
interface MessagesCursor {
  ts: number;
  ids: string[];
}

async function pullMessages(ctx: PullContext, channel: ChannelFact): Promise<void> {
  const from = ctx.since.kind === 'delta' ? ctx.since.cutoffMs(channel.url) : 0;
  await ctx.pages<MessagesCursor>(messagesStream(channel), async (cursor) => {
    const at = cursor ?? { ts: from, ids: [] };
    const page = await messagesFrom(ctx.http, channel.type, channel.url, at.ts);
    if (page === undefined) {
      ctx.warning(`sendbird: channel ${channel.url} is gone (deleted since it was listed): no messages read`);
      return { items: [] };
    }
    const met = new Set(at.ids);
    const items = page.filter((m) => !(msOf(m.created_at) === at.ts && met.has(String(m.message_id))));
    if (page.length < MESSAGES_LIMIT) return { items };
    return { items, next: nextCursor(ctx, channel, at, page, items.length) };
  });
}

/**
 * The anchor of the next page: the newest time on this one, with the ids already met at that time
 * (`include=true` brings them again). A full page of one millisecond met before cannot move on by
 * time: then the next millisecond, said out loud, since Sendbird pages only by time here.
 */
function nextCursor(
  ctx: PullContext,
  channel: ChannelFact,
  at: MessagesCursor,
  page: SendbirdObject[],
  fresh: number,
): MessagesCursor {
  const ts = msOf(page[page.length - 1].created_at) ?? at.ts;
  if (fresh === 0) {
    ctx.warning(`sendbird: over ${MESSAGES_LIMIT} messages of ${channel.url} at ${ts} ms: some may be left out`);
    return { ts: ts + 1, ids: [] };
  }
  const ids = page.filter((m) => msOf(m.created_at) === ts).map((m) => String(m.message_id));
  return { ts, ids: ts === at.ts ? [...at.ids, ...ids.filter((id) => !at.ids.includes(id))] : ids };
}
