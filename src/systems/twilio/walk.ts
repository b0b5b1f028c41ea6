/**
 * The walk of a Twilio account: its Conversation Services (or the one `TWILIO_CONVERSATIONS_SERVICE_SID`
 * names), each service's users and conversations, then each conversation's participants and messages,
 * `ctx.concurrency` conversations at a time. Every file goes through `ctx.pages`, so a killed pull
 * resumes from its cursors (a next page URL); the services and conversations are remembered with their
 * pages, so a resumed or delta run knows them without listing again what an earlier run finished.
 */
import { InterruptedError } from '../../errors.js';
import type { PullContext } from '../shared/pull-types.js';
import { changedMs, paths, readListPage, timeMs, type ListKey, type ListPage, type TwilioItem } from './api.js';
import { DEFAULT_MEDIA_BASE_URL } from './credentials.js';
import { files, listLayout, messageForExport } from './layout.js';

const SERVICE = 'twilio:service:';
const CONVERSATION = 'twilio:conversation:';

interface Conversation {
  service: string;
  sid: string;
  /** When it was created (ms): a delta reads a conversation newer than its cutoff from its start. */
  createdMs?: number;
}

export async function pullTwilio(ctx: PullContext): Promise<void> {
  const services = await pullServices(ctx);
  for (const service of services) {
    stopIfAsked(ctx);
    await pullUsers(ctx, service);
    await pullConversations(ctx, service);
  }
  const conversations = ctx
    .remembered(CONVERSATION)
    .map(([, value]) => value as Conversation)
    .filter((c) => services.includes(c.service));
  const mediaBaseUrl = ctx.facts.mediaBaseUrl ?? DEFAULT_MEDIA_BASE_URL;
  await ctx.eachChannel(conversations, async (c) => {
    await pullParticipants(ctx, c);
    await pullMessages(ctx, c, mediaBaseUrl);
  });
}

/** A list page as the core's page: the next link is the cursor, a string (JSON). */
async function listPage(
  ctx: PullContext,
  key: ListKey,
  first: { path: string; query?: Record<string, string> },
  cursor: string | undefined,
  gone = false,
) {
  return readListPage(ctx.http, key, cursor === undefined ? first : { next: cursor }, gone);
}

async function pullServices(ctx: PullContext): Promise<string[]> {
  if (ctx.facts.serviceSid !== undefined) return [ctx.facts.serviceSid];
  await ctx.pages<string>(
    {
      id: 'services',
      file: files.services,
      layout: listLayout('services'),
      entity: 'groups',
      notRecords: true,
      itemTimeMs: changedMs,
    },
    async (cursor) => {
      const page = await listPage(ctx, 'services', { path: paths.services() }, cursor);
      const sids = page.items.map((s) => s.sid).filter((sid): sid is string => typeof sid === 'string');
      return { items: page.items, next: page.next, remember: sids.map((sid) => [`${SERVICE}${sid}`, sid] as const) };
    },
  );
  return ctx.remembered(SERVICE).map(([, sid]) => sid as string);
}

async function pullUsers(ctx: PullContext, service: string): Promise<void> {
  await ctx.pages<string>(
    {
      id: `users:${service}`,
      file: files.users(service),
      layout: listLayout('users'),
      entity: 'users',
      itemTimeMs: changedMs,
    },
    async (cursor) => pageOf(await listPage(ctx, 'users', { path: paths.users(service) }, cursor)),
  );
}

async function pullConversations(ctx: PullContext, service: string): Promise<void> {
  await ctx.pages<string>(
    {
      id: `conversations:${service}`,
      file: files.conversations(service),
      layout: listLayout('conversations'),
      entity: 'groups',
      itemTimeMs: changedMs,
    },
    async (cursor) => {
      const page = await listPage(ctx, 'conversations', { path: paths.conversations(service) }, cursor);
      const remember = page.items.flatMap((c) => {
        if (typeof c.sid !== 'string') return [];
        const fact: Conversation = { service, sid: c.sid, createdMs: timeMs(c.date_created) };
        return [[`${CONVERSATION}${c.sid}`, fact] as const];
      });
      return { items: page.items, next: page.next, remember };
    },
  );
}

async function pullParticipants(ctx: PullContext, c: Conversation): Promise<void> {
  await ctx.pages<string>(
    {
      id: `participants:${c.sid}`,
      file: files.participants(c.sid),
      layout: listLayout('participants'),
      entity: 'members',
      // A participant is new by its creation; a later change (its attributes) adds no member.
      itemTimeMs: (p) => timeMs((p as TwilioItem).date_created),
    },
    async (cursor) =>
      pageOf(await listPage(ctx, 'participants', { path: paths.participants(c.service, c.sid) }, cursor, true)),
  );
}

/**
 * A conversation's messages. A full pull reads them oldest first (`Order=asc`, by `index`). A delta
 * reads newest first (`Order=desc`) and stops at the first page that reaches back past the cutoff, so
 * a conversation with nothing new costs one request; each page is written oldest first. A conversation
 * created after the cutoff is read from its start instead, oldest first, for the same number of pages.
 */
async function pullMessages(ctx: PullContext, c: Conversation, mediaBaseUrl: string): Promise<void> {
  const since = ctx.since;
  const cutoff = since.kind === 'delta' ? since.cutoffMs(c.sid) : undefined;
  const newest = cutoff !== undefined && (c.createdMs === undefined || c.createdMs < cutoff);
  const order = newest ? 'desc' : 'asc';
  await ctx.pages<string>(
    {
      id: `messages:${c.sid}`,
      file: files.messages(c.sid),
      layout: listLayout('messages'),
      entity: 'messages',
      channel: c.sid,
      itemKey: (m) => String((m as TwilioItem).sid),
      itemTimeMs: (m) => timeMs((m as TwilioItem).date_created),
    },
    async (cursor) => {
      const first = { path: paths.messages(c.service, c.sid), query: { Order: order } };
      const page = await listPage(ctx, 'messages', first, cursor, true);
      const items = page.items.map((m) => messageForExport(m, c.service, mediaBaseUrl));
      if (!newest) return { items, next: page.next };
      const reachesBack = page.items.some((m) => (timeMs(m.date_created) ?? 0) < cutoff!);
      return { items: items.reverse(), next: reachesBack ? undefined : page.next };
    },
  );
}

/** Ctrl+C takes no new work; returning instead would end the pull run as if it were whole. */
function stopIfAsked(ctx: PullContext): void {
  if (ctx.stop.aborted) throw new InterruptedError();
}

function pageOf(page: ListPage): { items: TwilioItem[]; next?: string } {
  return { items: page.items, next: page.next };
}
