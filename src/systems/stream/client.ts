/**
 * Stream Chat's server-side REST API as `pull stream` uses it: the paths, parameters and answer shapes
 * of the official Node SDK (GetStream/stream-chat-js, src/client.ts and src/channel.ts). GET requests
 * carry their query as one JSON `payload` parameter, as the SDK's axiosParamsSerializer writes it;
 * every request carries the app's `api_key` (not secret) in the query and the server token in headers.
 */
import { SourceError } from '../../errors.js';
import type { SourceAnswer, SourceHttp } from '../../http/source-client.js';

/** Stream's objects are open-ended JSON; the pull keeps them whole and reads a few fields. */
export type StreamObject = Record<string, unknown>;

/** The most each list answers: Query Users 100, Query Channels 30, members 100, messages 300, search 100. */
export const PAGE = { users: 100, channels: 30, members: 100, messages: 300, replies: 300, search: 100 } as const;

/**
 * Stream's offset caps: Query Channels' "offset max is 1000" (its SDKs; past it Stream keeps answering
 * the same page) and QueryMembersPayload.offset's maximum 10,000 (GetStream/protocol, chat-openapi).
 */
export const OFFSET_MAX = { channels: 1000, members: 10_000 } as const;

/**
 * Where a list paged by `created_at` stands: the time of its last item, as Stream wrote it, and how many
 * items at exactly that time were read. The next page asks `created_at >= at` and skips those, so the
 * offset never grows past one instant's ties, whatever the list's length.
 */
export interface Keyset {
  at: string;
  skip: number;
}

/** A channel as the pull keeps it between steps (remembered with the channels' pages). */
export interface ChannelRef {
  type: string;
  id: string;
  cid: string;
}

const sortBy = (field: string) => [{ field, direction: 1 }];
const objects = (v: unknown): StreamObject[] =>
  Array.isArray(v) ? v.filter((o): o is StreamObject => typeof o === 'object' && o !== null) : [];
const field = (body: unknown, name: string): unknown =>
  typeof body === 'object' && body !== null ? (body as StreamObject)[name] : undefined;

export class StreamApi {
  constructor(
    private readonly http: SourceHttp,
    private readonly apiKey: string,
  ) {}

  private async get(path: string, payload: unknown, subject: string): Promise<unknown> {
    const query = { api_key: this.apiKey, payload: JSON.stringify(payload) };
    return (await this.http.request({ path, query, subject })).body;
  }

  private async post(path: string, json: unknown, subject: string): Promise<unknown> {
    return (await this.http.request({ method: 'POST', path, query: { api_key: this.apiKey }, json, subject })).body;
  }

  /** Query Users, keyset on `id` (offset paging is capped): those after `afterId`, changed since `sinceIso`. */
  async users(afterId: string | undefined, sinceIso: string | undefined): Promise<StreamObject[]> {
    const filter: StreamObject = {};
    if (afterId !== undefined) filter.id = { $gt: afterId };
    if (sinceIso !== undefined) filter.updated_at = { $gte: sinceIso };
    const payload = {
      filter_conditions: filter,
      sort: sortBy('id'),
      limit: PAGE.users,
      presence: false,
      include_deactivated_users: true,
    };
    return objects(field(await this.get('/users', payload, 'GET /users (query users)'), 'users'));
  }

  /** Query Channels: every channel the server token sees, oldest first, by `created_at` (docs/pull/stream.md). */
  async channels(from: Keyset | undefined): Promise<StreamObject[]> {
    const body = await this.post(
      '/channels',
      {
        filter_conditions: from === undefined ? {} : { created_at: { $gte: from.at } },
        sort: sortBy('created_at'),
        limit: PAGE.channels,
        offset: skipOf(from, OFFSET_MAX.channels, 'channels created at'),
        state: true,
        watch: false,
        presence: false,
        member_limit: 0,
        message_limit: 0,
      },
      'POST /channels (query channels)',
    );
    return objects(field(body, 'channels'))
      .map((c) => field(c, 'channel'))
      .filter((c): c is StreamObject => typeof c === 'object' && c !== null);
  }

  /**
   * Query Members of one channel, oldest first by `created_at` (the one sort field its OpenAPI lists),
   * joined since `sinceIso` when given. Undefined when the channel is gone: Stream's 404 (code 16).
   */
  async members(
    channel: ChannelRef,
    from: Keyset | undefined,
    sinceIso: string | undefined,
  ): Promise<StreamObject[] | undefined> {
    // A page's members joined at or after `sinceIso`, so the keyset's time is never before it.
    const at = from?.at ?? sinceIso;
    const payload = {
      type: channel.type,
      id: channel.id,
      filter_conditions: at === undefined ? {} : { created_at: { $gte: at } },
      sort: sortBy('created_at'),
      limit: PAGE.members,
      offset: skipOf(from, OFFSET_MAX.members, `members of ${channel.cid} who joined at`),
    };
    const query = { api_key: this.apiKey, payload: JSON.stringify(payload) };
    const answer = await this.http.request({
      path: '/members',
      query,
      subject: 'GET /members (query members)',
      judge: (a) => (gone(a) ? { done: a } : undefined),
    });
    return gone(answer) ? undefined : objects(field(answer.body, 'members'));
  }

  /**
   * One page of a channel's messages, oldest first: those after the message `afterId`, or from the
   * start (`created_at_after_or_equal` the epoch). Thread replies are not in it unless shown in the channel.
   */
  async messages(channel: ChannelRef, afterId: string | undefined): Promise<StreamObject[]> {
    const messages: StreamObject = { limit: PAGE.messages };
    if (afterId === undefined) messages.created_at_after_or_equal = new Date(0).toISOString();
    else messages.id_gt = afterId;
    const body = await this.post(
      `/channels/${encodeURIComponent(channel.type)}/${encodeURIComponent(channel.id)}/query`,
      { state: true, watch: false, presence: false, messages, members: { limit: 0 }, watchers: { limit: 0 } },
      'POST /channels/{type}/{id}/query (channel messages)',
    );
    return objects(field(body, 'messages'));
  }

  /**
   * One page of a thread's replies, oldest first, after the reply `afterId`. Without `sort` Stream
   * answers the latest replies ("Get the latest 20 replies"), so `id_gt` alone would skip a long
   * thread's oldest: its SDKs page forward with `sort=[{"field":"created_at","direction":1}]`.
   */
  async replies(parentId: string, afterId: string | undefined): Promise<StreamObject[]> {
    const query: Record<string, string | number> = {
      api_key: this.apiKey,
      sort: JSON.stringify(sortBy('created_at')),
      limit: PAGE.replies,
    };
    if (afterId !== undefined) query.id_gt = afterId;
    const answer = await this.http.request({
      path: `/messages/${encodeURIComponent(parentId)}/replies`,
      query,
      subject: 'GET /messages/{id}/replies',
    });
    return objects(field(answer.body, 'messages'));
  }

  /**
   * Search one channel's messages (replies too) created since `sinceIso`, oldest first; `next` is the
   * answer's cursor. The deltas' one request a channel when nothing is new. Stream does not document
   * its answer for a channel whose type has search turned off (it is a 400, code 4: "There are no
   * searchable channels"): `refused` carries what it said, and the walk goes on without that channel.
   */
  async search(
    channel: ChannelRef,
    sinceIso: string,
    next: string | undefined,
  ): Promise<{ messages: StreamObject[]; next?: string; refused?: string }> {
    const payload: StreamObject = {
      filter_conditions: { cid: channel.cid },
      message_filter_conditions: { created_at: { $gte: sinceIso } },
      sort: sortBy('created_at'),
      limit: PAGE.search,
    };
    if (next !== undefined) payload.next = next;
    const answer = await this.http.request({
      path: '/search',
      query: { api_key: this.apiKey, payload: JSON.stringify(payload) },
      subject: 'GET /search (channel messages since)',
      judge: (a) => (a.status === 400 ? { done: a } : undefined),
    });
    const body = answer.body;
    if (answer.status === 400) return { messages: [], refused: String(field(body, 'message') ?? 'HTTP 400') };
    const messages = objects(field(body, 'results'))
      .map((r) => field(r, 'message'))
      .filter((m): m is StreamObject => typeof m === 'object' && m !== null);
    const cursor = field(body, 'next');
    return typeof cursor === 'string' && cursor !== '' ? { messages, next: cursor } : { messages };
  }
}

/** Stream's answer for a channel that is not there (deleted since a pull listed it): 404, code 16. */
const gone = (answer: SourceAnswer) => answer.status === 404;

/** The offset a keyset asks, within Stream's cap: past it the list cannot go on without repeating. */
function skipOf(from: Keyset | undefined, max: number, what: string): number {
  const skip = from?.skip ?? 0;
  if (skip <= max) return skip;
  throw new SourceError(
    'SOURCE_REFUSED',
    `stream: over ${max} ${what} ${from?.at}: Stream pages no further than offset ${max}`,
  );
}
