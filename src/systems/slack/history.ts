/**
 * A conversation's messages: conversations.history (newest first, `oldest` from a delta's cutoff so
 * a delta with nothing new reads one page) and, for each thread parent on a page, its replies
 * (conversations.replies), written with the page that holds the parent. Pins need no call of their
 * own: history marks a pinned message `pinned_to`. Files come as metadata in `files`.
 */
import type { PullContext } from '../shared/pull-types.js';
import { callSlack, isRefusal, nextCursor, objectsOf, tsMs } from './api.js';
import { ARRAY_FILE, type ConversationFacts, dayFileOf } from './layout.js';
import { CONVERSATION_FACT } from './lists.js';

const PAGE = 200;
/** The newest message time (ms) a pull saw in a conversation, replies included. */
export const SEEN_FACT = 'slack:seen:';

interface HistoryCursor {
  /** Slack's next_cursor; undefined for the first page. */
  cursor?: string;
  /** Replies newer than this (ms) are fetched: a thread whose latest reply is older was pulled before. */
  repliesAfterMs: number;
  /** The newest time seen so far in this conversation. */
  seenMs: number;
}

type Message = Record<string, unknown>;

/** Every conversation's messages, `ctx.concurrency` at a time. */
export async function pullMessages(ctx: PullContext): Promise<void> {
  const all = ctx.remembered(CONVERSATION_FACT).map(([, facts]) => facts as ConversationFacts);
  const readable = all.filter((c) => c.member);
  const outside = all.length - readable.length;
  if (outside > 0)
    ctx.warning(
      `the token is not a member of ${outside} public channel(s): their messages are not pulled ` +
        '(invite the app with /invite, or use a user token: docs/pull/slack.md)',
    );
  const seen = new Map(ctx.remembered(SEEN_FACT).map(([key, ms]) => [key.slice(SEEN_FACT.length), Number(ms)]));
  await ctx.eachChannel(readable, (c) => pullHistory(ctx, c, seen.get(c.id)));
}

async function pullHistory(ctx: PullContext, c: ConversationFacts, seenBefore: number | undefined): Promise<void> {
  const cutoffMs = ctx.since.kind === 'delta' ? ctx.since.cutoffMs(c.id) : undefined;
  const oldest = cutoffMs === undefined || cutoffMs <= 0 ? undefined : (cutoffMs / 1000).toFixed(6);
  await ctx.pages<HistoryCursor>(
    {
      id: `messages:${c.id}`,
      file: dayFileOf(c.folder, Math.max(c.createdMs, cutoffMs ?? 0)),
      layout: ARRAY_FILE,
      entity: 'messages',
      channel: c.id,
      itemKey: (m) => String((m as Message).ts),
      itemTimeMs: (m) => tsMs((m as Message).ts),
    },
    async (at) => {
      // In a delta, threads whose latest reply the pull saw before need no replies call.
      const repliesAfterMs = at?.repliesAfterMs ?? (cutoffMs === undefined ? -1 : (seenBefore ?? -1));
      const body = await callSlack(
        ctx.http,
        'conversations.history',
        { channel: c.id, limit: PAGE, cursor: at?.cursor, oldest, inclusive: oldest === undefined ? undefined : true },
        ['channel_not_found', 'not_in_channel'],
      );
      if (isRefusal(body)) {
        ctx.warning(`slack: the history of ${c.folder} cannot be read (${body.error}): skipped`);
        return { items: [] };
      }
      const items: Message[] = [];
      let seenMs = at?.seenMs ?? -1;
      for (const m of objectsOf(body, 'messages')) {
        items.push(m);
        seenMs = Math.max(seenMs, tsMs(m.ts) ?? -1);
        if (!isThreadParent(m) || (tsMs(m.latest_reply) ?? Number.POSITIVE_INFINITY) <= repliesAfterMs) continue;
        for (const reply of await repliesOf(ctx, c.id, String(m.ts), oldest)) {
          items.push(reply);
          seenMs = Math.max(seenMs, tsMs(reply.ts) ?? -1);
        }
      }
      const next = nextCursor(body);
      return {
        items,
        next: next === undefined ? undefined : { cursor: next, repliesAfterMs, seenMs },
        remember: seenMs > (seenBefore ?? -1) ? [[`${SEEN_FACT}${c.id}`, seenMs]] : undefined,
      };
    },
  );
}

function isThreadParent(m: Message): boolean {
  return typeof m.reply_count === 'number' && m.reply_count > 0 && (m.thread_ts === undefined || m.thread_ts === m.ts);
}

/**
 * A thread's replies, all pages, without its parent (the first of Slack's answer) and without the
 * replies also sent to the channel (`thread_broadcast`), which history lists on their own.
 */
async function repliesOf(ctx: PullContext, channel: string, ts: string, oldest: string | undefined) {
  const out: Message[] = [];
  let cursor: string | undefined;
  do {
    const body = await callSlack(ctx.http, 'conversations.replies', { channel, ts, limit: PAGE, cursor, oldest }, [
      'thread_not_found',
      'channel_not_found',
    ]);
    if (isRefusal(body)) return out;
    for (const r of objectsOf(body, 'messages')) if (r.ts !== ts && r.subtype !== 'thread_broadcast') out.push(r);
    cursor = nextCursor(body);
  } while (cursor !== undefined);
  return out;
}
