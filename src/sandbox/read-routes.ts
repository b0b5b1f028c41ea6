import { errorBody, SerialisedJson } from './http-io.js';
import type { MessageFilter } from './message-store.js';
import { BadQuery, cursorQuery, pageOf, queryFlag, queryNumber } from './paging.js';
import { groupItem, memberItem, userItem } from './read-items.js';
import type { RecordStore } from './record-store.js';

/** A route's answer: status and body (a body object, or JSON text already made). */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

export interface ReadContext {
  store: RecordStore;
  readsWithoutMuid: boolean;
  /** Group items leave `metadata` out. */
  groupReadsWithoutMetadata?: boolean;
  /** Messages sent before this (UNIX seconds) are beyond retention: never read. */
  retainedFrom: number;
}

export const notFound = (code: string, what: string): RouteAnswer => ({
  status: 404,
  body: errorBody(code, `${what} does not exist`),
});
const badRequest = (message: string): RouteAnswer => ({ status: 400, body: errorBody('ERR_BAD_REQUEST', message) });

/**
 * GET routes of docs/service-reads.md over what the sandbox stored; `path` is the segments after the version,
 * ids lower-cased as the service stores them. Undefined for a path that is no read endpoint.
 */
export function answerRead(
  ctx: ReadContext,
  path: string[],
  query: URLSearchParams,
  onBehalfOf: string | undefined,
): RouteAnswer | undefined {
  try {
    return route(ctx, path, query, onBehalfOf);
  } catch (err) {
    if (err instanceof BadQuery) return badRequest(err.message);
    throw err;
  }
}

function route(ctx: ReadContext, path: string[], query: URLSearchParams, onBehalfOf: string | undefined) {
  const { store } = ctx;
  const [collection, id, sub] = path;
  const withTags = queryFlag(query, 'withTags');
  const shown = { metadata: !ctx.groupReadsWithoutMetadata };
  if (path.length > 3 || (path.length === 3 && collection === 'messages')) return undefined;
  const subs = collection === 'users' ? ['messages'] : ['messages', 'members', 'bannedusers'];
  if (sub !== undefined && !subs.includes(sub)) return undefined;
  if (collection === 'users') {
    if (id === undefined)
      return { status: 200, body: pageOf(userIds(store, query), query, (uid) => userItem(store, uid, withTags)) };
    if (store.get('users', id) === undefined || store.isDeactivated(id))
      return notFound('ERR_UID_NOT_FOUND', `user ${id}`);
    if (sub === undefined) return { status: 200, body: { data: userItem(store, id, withTags) } };
    if (!onBehalfOf) return badRequest('reading a conversation needs the onBehalfOf header (the other uid)');
    const conversationId = [id, onBehalfOf.toLowerCase()].sort().join('_user_');
    return messageList(ctx, query, { conversation: conversationIndex(store, conversationId) });
  }
  if (collection === 'groups') {
    if (id === undefined)
      return { status: 200, body: pageOf(groupIds(store, query), query, (g) => groupItem(store, g, withTags, shown)) };
    if (store.get('groups', id) === undefined) return notFound('ERR_GUID_NOT_FOUND', `group ${id}`);
    if (sub === undefined) return { status: 200, body: { data: groupItem(store, id, withTags, shown) } };
    if (sub === 'messages') return messageList(ctx, query, { conversation: conversationIndex(store, `group_${id}`) });
    const scopes = query.get('scopes')?.toLowerCase().split(',');
    const members = store.members(id, sub === 'bannedusers').filter((m) => !scopes || scopes.includes(m.scope));
    return { status: 200, body: pageOf(members, query, (m) => memberItem(store, id, m)) };
  }
  if (collection !== 'messages') return undefined;
  if (id !== undefined) {
    const slot = store.messages.slotOfId(id);
    if (slot < 0 || store.messages.sentAt(slot) < ctx.retainedFrom) {
      return notFound('ERR_MESSAGE_ID_NOT_FOUND', `message ${id}`);
    }
    return {
      status: 200,
      body: new SerialisedJson(`{"data":${store.messages.itemText(slot, !ctx.readsWithoutMuid)}}`),
    };
  }
  const conversation = query.get('conversationId');
  const receiverType = query.get('receiverType') ?? undefined;
  if (receiverType !== undefined && receiverType !== 'user' && receiverType !== 'group') {
    throw new BadQuery('receiverType must be user or group');
  }
  return messageList(ctx, query, {
    conversation: conversation ? conversationIndex(store, conversation.toLowerCase()) : undefined,
    receiverType,
    sender: query.get('sender')?.toLowerCase(),
  });
}

/** -1 for a conversation without messages: the list is then empty. */
function conversationIndex(store: RecordStore, conversationId: string): number {
  return store.messages.conversationIndex(conversationId) ?? -1;
}

function userIds(store: RecordStore, query: URLSearchParams): string[] {
  const only = queryFlag(query, 'onlyDeactivated');
  const all = only || queryFlag(query, 'withDeactivated');
  const out: string[] = [];
  for (const uid of store.idsOf('users')) {
    const deactivated = store.isDeactivated(uid);
    if (only ? deactivated : all || !deactivated) out.push(uid);
  }
  return out;
}

function groupIds(store: RecordStore, query: URLSearchParams): string[] {
  const guids = [...store.idsOf('groups')];
  const sortBy = query.get('sortBy');
  if (sortBy === null) return guids;
  if (sortBy !== 'name' && sortBy !== 'guid' && sortBy !== 'createdAt') {
    throw new BadQuery('sortBy must be name, guid or createdAt');
  }
  const order = query.get('sortOrder') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw new BadQuery('sortOrder must be asc or desc');
  const key = (guid: string): string | number => {
    const record = store.get('groups', guid);
    if (sortBy === 'guid' || record === undefined || record === true) return guid;
    return (record[sortBy] as string | number | undefined) ?? '';
  };
  const sign = order === 'asc' ? 1 : -1;
  return guids.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : 0) * sign;
  });
}

/** One cursor page of messages: ascending by service id, with `meta.next` / `meta.previous` when more exist. */
function messageList(ctx: ReadContext, query: URLSearchParams, filter: MessageFilter): RouteAnswer {
  const messages = ctx.store.messages;
  const cursor = cursorQuery(query);
  const from = queryNumber(query, 'fromTimestamp', -1);
  const to = queryNumber(query, 'toTimestamp', -1);
  const full: MessageFilter = {
    ...filter,
    fromSeconds: from >= 0 ? from : undefined,
    toSeconds: to >= 0 ? to : undefined,
  };
  const visible = (slot: number) => messages.sentAt(slot) >= ctx.retainedFrom;
  const slots: number[] = [];
  let more = false;
  if (filter.conversation !== -1) {
    messages.scan(full, cursor, visible, (slot) => {
      if (slots.length === cursor.limit) {
        more = true;
        return false;
      }
      slots.push(slot);
      return true;
    });
  }
  const backward = cursor.beforeId !== undefined;
  if (backward) slots.reverse();
  const exists = (where: { afterId?: number; beforeId?: number }) => {
    let found = false;
    messages.scan(full, where, visible, () => {
      found = true;
      return false;
    });
    return found;
  };
  const meta: Record<string, unknown> = { current: { limit: cursor.limit, count: slots.length } };
  if (slots.length > 0) {
    const first = slots[0];
    const last = slots[slots.length - 1];
    const mark = (affix: string, slot: number) => ({
      affix,
      sentAt: messages.sentAt(slot),
      id: messages.serviceId(slot),
    });
    const firstId = Number(messages.serviceId(first));
    const lastId = Number(messages.serviceId(last));
    if (backward ? exists({ afterId: lastId }) : more) meta.next = mark('append', last);
    if (backward ? more : exists({ beforeId: firstId })) meta.previous = mark('prepend', first);
  }
  const items = slots.map((slot) => messages.itemText(slot, !ctx.readsWithoutMuid));
  return { status: 200, body: new SerialisedJson(`{"data":[${items.join(',')}],"meta":${JSON.stringify(meta)}}`) };
}
