/**
 * The walk of `pull stream`: users, then channels (remembered, so a resumed pull knows them without
 * reading the list again), then each channel's members and messages, `ctx.concurrency` channels at a
 * time. Every file goes through `ctx.pages`, so a killed pull resumes from its last written page.
 * A full pull reads messages by id (the channel query, oldest first, then each thread's replies); a
 * delta searches each channel for messages created since its cutoff, replies included, so a delta with
 * nothing new costs one request a channel. docs/pull/stream.md says why.
 */
import pLimit from 'p-limit';
import type { PullContext } from '../shared/pull-types.js';
import { type ChannelRef, type Keyset, PAGE, type StreamApi, type StreamObject } from './client.js';
import {
  channelLine,
  channelsSpec,
  type Line,
  memberLine,
  membersSpec,
  messageLine,
  messagesSpec,
  userLine,
  usersSpec,
} from './layout.js';

const CHANNEL_FACT = 'stream:channel:';
/** Threads of one page asked at once: the limiter still paces every request. */
const THREADS_AT_ONCE = 4;
const iso = (ms: number) => new Date(ms).toISOString();
const idOf = (o: StreamObject): string => String(o.id ?? '');

export async function walkStream(ctx: PullContext, api: StreamApi): Promise<void> {
  const listSince = ctx.since.kind === 'delta' ? iso(ctx.since.listCutoffMs) : undefined;

  await ctx.pages<string>(usersSpec, async (afterId) => {
    const users = await api.users(afterId, listSince);
    const last = users.at(-1);
    return { items: users.map(userLine), next: users.length === PAGE.users && last ? idOf(last) : undefined };
  });

  // Every channel is read, even in a delta: messages are pulled for all; the core keeps the changed ones.
  await ctx.pages<Keyset>(channelsSpec, async (from) => {
    const channels = await api.channels(from);
    const refs = channels.map(refOf).filter((r): r is ChannelRef => r !== undefined);
    return {
      items: channels.map(channelLine),
      next: channels.length === PAGE.channels ? nextKeyset(from, channels) : undefined,
      remember: refs.map((r) => [`${CHANNEL_FACT}${r.cid}`, r] as const),
    };
  });

  // Channels remembered by earlier pulls too: one deleted since is named and left, never a stop.
  const channels = ctx.remembered(CHANNEL_FACT).map(([, ref]) => ref as ChannelRef);
  const gone: string[] = [];
  const unsearched: string[] = [];
  await ctx.eachChannel(channels, async (channel) => {
    if (!(await pullMembers(ctx, api, channel, listSince))) gone.push(channel.cid);
    else await pullMessages(ctx, api, channel, unsearched);
  });
  if (gone.length > 0) {
    const names = gone.sort().join(', ');
    ctx.warning(`stream: ${gone.length} channel(s) gone since an earlier pull listed them, not read: ${names}`);
  }
  if (unsearched.length > 0) {
    ctx.warning(
      `stream: search refused for ${unsearched.length} channel(s), their new messages not read ` +
        `(search off for the channel type? a full pull reads them): ${unsearched.sort().join('; ')}`,
    );
  }
}

/**
 * The keyset after a full page of a list sorted by `created_at`: its last item's time, and how many
 * items at that time have been read (those of earlier pages too, when the page is all one instant).
 */
function nextKeyset(from: Keyset | undefined, page: readonly StreamObject[]): Keyset {
  const at = String(page.at(-1)?.created_at ?? '');
  const ties = page.filter((o) => o.created_at === at).length;
  return { at, skip: from?.at === at ? from.skip + ties : ties };
}

function refOf(c: StreamObject): ChannelRef | undefined {
  const type = typeof c.type === 'string' ? c.type : undefined;
  const id = typeof c.id === 'string' ? c.id : undefined;
  if (type === undefined || id === undefined) return undefined;
  return { type, id, cid: typeof c.cid === 'string' ? c.cid : `${type}:${id}` };
}

/** A channel's members, page by page; false when the channel is gone (then nothing is written). */
async function pullMembers(
  ctx: PullContext,
  api: StreamApi,
  channel: ChannelRef,
  since: string | undefined,
): Promise<boolean> {
  let there = true;
  await ctx.pages<Keyset>(membersSpec(channel), async (from) => {
    const members = await api.members(channel, from, since);
    if (members === undefined) there = false;
    const page = members ?? [];
    return {
      items: page.map((m) => memberLine(m, channel)),
      next: page.length === PAGE.members ? nextKeyset(from, page) : undefined,
    };
  });
  return there;
}

/** A channel's messages; one whose search Stream refuses in a delta is added to `unsearched`, with its words. */
async function pullMessages(
  ctx: PullContext,
  api: StreamApi,
  channel: ChannelRef,
  unsearched: string[],
): Promise<void> {
  const since = ctx.since;
  if (since.kind === 'delta') {
    const from = iso(since.cutoffMs(channel.cid));
    await ctx.pages<string>(messagesSpec(channel), async (next) => {
      const page = await api.search(channel, from, next);
      if (page.refused !== undefined) unsearched.push(`${channel.cid} (${page.refused})`);
      return { items: page.messages.map((m) => messageLine(m, channel)), next: page.next };
    });
    return;
  }
  // A page's threads are read a few at once: one busy channel's threads would otherwise be the tail.
  const threads = pLimit(THREADS_AT_ONCE);
  await ctx.pages<string>(messagesSpec(channel), async (afterId) => {
    const messages = await api.messages(channel, afterId);
    const replies = await Promise.all(
      messages.map((m) =>
        typeof m.reply_count === 'number' && m.reply_count > 0
          ? threads(() => threadReplies(api, idOf(m)))
          : Promise.resolve([]),
      ),
    );
    // A thread's replies follow their parent, in the same page: a resumed pull asks for them again.
    const items: Line[] = messages.flatMap((m, i) => [m, ...replies[i]].map((one) => messageLine(one, channel)));
    const last = messages.at(-1);
    return { items, next: messages.length === PAGE.messages && last ? idOf(last) : undefined };
  });
}

/** A thread's replies, all pages; those also shown in the channel come with the channel's own pages. */
async function threadReplies(api: StreamApi, parentId: string): Promise<StreamObject[]> {
  const out: StreamObject[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.replies(parentId, after);
    for (const r of page) if (r.show_in_channel !== true) out.push(r);
    if (page.length < PAGE.replies) return out;
    after = idOf(page.at(-1)!);
  }
}
