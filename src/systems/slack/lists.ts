/**
 * The lists of a Slack pull: users (users.list) and the four kinds of conversation
 * (conversations.list, one type at a time so each lands in its own index file), each conversation
 * with its members (conversations.members) as Slack's export writes them. A list page is written
 * with the facts the message walk needs (which conversations, their folders, their members), so a
 * resumed pull knows them without listing again.
 */
import type { PullContext } from '../shared/pull-types.js';
import { callSlack, isRefusal, nextCursor, objectsOf } from './api.js';
import { ARRAY_FILE, CONVERSATION_KINDS, USERS_FILE, type ConversationFacts, folderOf, indexEntry } from './layout.js';

const PAGE = 200;
/**
 * Every cursor-paged method takes `limit` up to 999 (Slack's SDK, `CursorPaginationEnabled.limit`:
 * "Must be an integer with a max value of 999"; conversations.members lists `invalid_limit`).
 * conversations.members is Tier 4 (100+ a minute).
 */
const MEMBERS_PAGE = 999;

export const CONVERSATION_FACT = 'slack:conv:';
export const MEMBERS_FACT = 'slack:members:';

/** users.list, all pages. Slack cannot list users changed since a time: a delta reads the whole list. */
export async function pullUsers(ctx: PullContext): Promise<void> {
  await ctx.pages<string>(
    {
      id: 'users',
      file: USERS_FILE,
      layout: ARRAY_FILE,
      entity: 'users',
      // `updated` is seconds: a delta keeps the users created or changed since its cutoff.
      itemTimeMs: (u) => secondsMs((u as Record<string, unknown>).updated),
    },
    async (cursor) => {
      const body = await callSlack(ctx.http, 'users.list', { limit: PAGE, cursor });
      if (isRefusal(body)) return { items: [] };
      return { items: objectsOf(body, 'members'), next: nextCursor(body) };
    },
  );
}

/** Each kind of conversation into its index file, with members. */
export async function pullConversations(ctx: PullContext): Promise<void> {
  const before = new Map(ctx.remembered(MEMBERS_FACT).map(([key, ids]) => [key, new Set(ids as string[])]));
  const known = new Map(ctx.remembered(CONVERSATION_FACT).map(([key, facts]) => [key, JSON.stringify(facts)]));
  for (const kind of CONVERSATION_KINDS) {
    if (ctx.stop.aborted) return;
    await ctx.pages<string>(
      { id: `list:${kind.type}`, file: kind.file, layout: ARRAY_FILE, entity: 'groups' },
      async (cursor) => {
        const body = await callSlack(
          ctx.http,
          'conversations.list',
          { types: kind.type, limit: PAGE, exclude_archived: false, cursor },
          ['missing_scope'],
        );
        if (isRefusal(body)) {
          // A token without im:read (say) cannot see DMs: the rest is still worth pulling.
          ctx.warning(
            `SLACK_TOKEN lacks ${body.needed ?? kind.scope}: ${kind.file} is not pulled (docs/pull/slack.md)`,
          );
          return { items: [] };
        }
        const items: unknown[] = [];
        const remember: Array<[string, unknown]> = [];
        // Each member written is a member record of the import (the preset reads them from the index).
        let memberRecords = 0;
        for (const conversation of objectsOf(body, 'channels')) {
          const id = String(conversation.id);
          const members = await membersOf(ctx, id);
          const facts: ConversationFacts = {
            id,
            type: kind.type,
            folder: folderOf(conversation, kind.type),
            createdMs: secondsMs(conversation.created) ?? 0,
            // conversations.list says is_member for channels; DMs and group DMs listed are the token's own.
            member: conversation.is_member !== false,
          };
          const earlier = before.get(`${MEMBERS_FACT}${id}`);
          // Facts are kept once and again only when they change: the journal does not grow each night.
          if (known.get(`${CONVERSATION_FACT}${id}`) !== JSON.stringify(facts))
            remember.push([`${CONVERSATION_FACT}${id}`, facts]);
          if (earlier === undefined || members.some((m) => !earlier.has(m)))
            remember.push([`${MEMBERS_FACT}${id}`, members]);
          const written = deltaMembers(ctx, conversation, members, earlier, kind.type === 'im');
          if (written === undefined) continue;
          items.push(indexEntry(conversation, written));
          memberRecords += written.length;
        }
        return { items, next: nextCursor(body), remember, nested: { members: memberRecords } };
      },
    );
  }
}

/**
 * The members a conversation is written with: all of them in a full pull; in a delta, the
 * conversation only when it is new or changed since the cutoff or has new members, and then with
 * the members no earlier pull wrote (a repeated membership would be read twice by the import).
 */
function deltaMembers(
  ctx: PullContext,
  conversation: Record<string, unknown>,
  members: string[],
  earlier: ReadonlySet<string> | undefined,
  /** A DM is its two people: written whole, whenever it is written. */
  whole: boolean,
): string[] | undefined {
  if (ctx.since.kind === 'full') return members;
  if (earlier === undefined) return members;
  const cutoff = ctx.since.listCutoffMs;
  const fresh = members.filter((m) => !earlier.has(m));
  const changed = (secondsMs(conversation.created) ?? 0) >= cutoff || updatedMs(conversation.updated) >= cutoff;
  if (!changed && fresh.length === 0) return undefined;
  return whole ? members : fresh;
}

/** Every member id of a conversation, all pages. */
async function membersOf(ctx: PullContext, channel: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const body = await callSlack(ctx.http, 'conversations.members', { channel, limit: MEMBERS_PAGE, cursor }, [
      'channel_not_found',
      'not_in_channel',
    ]);
    if (isRefusal(body)) return out;
    const ids = body.members;
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') out.push(id);
    cursor = nextCursor(body);
  } while (cursor !== undefined);
  return out;
}

function secondsMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}

/** A conversation's `updated` is in milliseconds (unlike `created`); a value in seconds is read as such. */
function updatedMs(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0;
  return value < 1e12 ? value * 1000 : value;
}
