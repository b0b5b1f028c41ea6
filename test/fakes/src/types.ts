/**
 * The fakes of the live sources, test doubles that the package never ships: one generated world of
 * users, channels, members and messages (fake-world.ts), served by one HTTP server (fake-server.ts) with
 * the sandbox's faults, a per-minute budget and a control route; each source renders the world in its
 * own API's paths, paging and shapes (`<name>.ts`, a FakeSource). A FakeSource holds no state: what a
 * fake keeps (its token, indexes over the world) lives in its server's world (`memo`), so any number
 * of fakes run in one process.
 */

export interface FakeUser {
  /**
   * Plain, unique and sortable: `user-0001` (`user-<n>` for those added later). A source whose ids look
   * otherwise (`U0123ABCD` for Slack, a snowflake for Discord) maps them in its FakeSource: see `idStyle`.
   */
  id: string;
  /** Unique among the generated users (`alice.smith`): what `@<name>` in a message's text names. */
  name: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** A path on the fake (`/__fake/media/avatar-user-0001`): prefix the fake's origin. */
  avatarUrl?: string;
  deactivated?: boolean;
  bot?: boolean;
}

export interface FakeMember {
  userId: string;
  joinedAtMs: number;
  role: 'admin' | 'member';
}

export interface FakeChannel {
  /** Plain, unique and sortable: `channel-0001`; a FakeSource maps it if its ids look otherwise. */
  id: string;
  name: string;
  /** direct: two people; group-direct: three to eight (Slack's mpim, Discord's group DM). */
  kind: 'public' | 'private' | 'direct' | 'group-direct';
  createdAtMs: number;
  updatedAtMs: number;
  creatorId: string;
  members: FakeMember[];
  /** Set by `DELETE /__fake/channels/<id>`: a fake that honours it answers as its source does for a deleted channel. */
  deletedAtMs?: number;
}

export interface FakeAttachment {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** Path on the fake that serves the bytes: `/__fake/media/<id>`. */
  path: string;
}

export interface FakeMessage {
  /**
   * Unique across the world: `seq` as 16 digits, so ids of one channel sort in send order numerically and
   * as text. A FakeSource maps it where the source's ids look otherwise (Slack's ts, Discord's snowflake).
   */
  id: string;
  /** `sentAtMs * 4096 + the channel's index`: larger is later, unique across the world. */
  seq: number;
  channelId: string;
  senderId: string;
  text: string;
  sentAtMs: number;
  /** A thread reply: its parent's id (the parent is earlier in the same channel). */
  parentId?: string;
  /** The ids of users @-mentioned in `text` (written `@<name>` there). */
  mentions: string[];
  attachments: FakeAttachment[];
  editedAtMs?: number;
}

/**
 * The generated world. Messages are made on demand from the seed (a million take no memory until asked
 * for); those added through the control route are kept. Every query is in send order.
 */
export interface FakeWorld {
  /** The end of the generated history (a fixed time); messages added later carry the real clock's time. */
  readonly nowMs: number;
  readonly users: readonly FakeUser[];
  readonly channels: readonly FakeChannel[];
  channel(id: string): FakeChannel | undefined;
  user(id: string): FakeUser | undefined;
  messageCount(channelId: string): number;
  /** The channel's message at `index` (0 oldest). */
  messageAt(channelId: string, index: number): FakeMessage;
  /** The index of the first message sent at or after `ms` (messageCount when none). */
  indexAtOrAfter(channelId: string, ms: number): number;
  /** The index of the message with this id, or -1. */
  indexOfId(channelId: string, id: string): number;
  /** Adds a message now (the control route): the tests' "a message arrives while we migrate". */
  addMessage(input: { channelId: string; senderId: string; text: string; parentId?: string }): FakeMessage;
  addUser(input: { id?: string; name: string }): FakeUser;
  addMember(channelId: string, userId: string): FakeMember;
  /** The bytes of an attachment, made from its id. */
  media(id: string): { bytes: Buffer; contentType: string } | undefined;
  /**
   * A source's own value over this world under `key`, made on first use (its token, its ids, its thread
   * index): one world per server, so each fake keeps its own and none is shared through a module.
   */
  memo<T>(key: string, make: () => T): T;
}

/** One request as a source's routes see it: the body parsed (JSON or a form), the query in `url`. */
export interface FakeRequest {
  method: string;
  /** As the client asked for it, its origin from the Host header: build absolute next links on `url.origin`. */
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** What a route answers; a string or Buffer body is sent as it is, anything else as JSON. */
export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What one fake server gives its source besides the request: its world, origin, clock and state. */
export interface FakeContext {
  readonly world: FakeWorld;
  /** Where the server listens (`http://127.0.0.1:<port>`): the origin of the absolute links it writes. */
  readonly origin: string;
  /** The server's clock: when links expire, what rate headers say. A test moves it instead of sleeping. */
  now(): number;
  /** How long a signed media link lives, when the test set it; each source has its own default. */
  readonly linkTtlMs?: number;
}

export interface FakeSource {
  readonly name: string;
  /** How the world's ids look for this source. */
  readonly idStyle: 'slug' | 'slack' | 'snowflake' | 'twilio' | 'uuid';
  /** The environment a client sets to reach the fake: `SENDBIRD_API_TOKEN=...`. */
  credentials(ctx: FakeContext): Record<string, string>;
  /** Whether the request carries the credentials; the server answers 401 in `unauthorized`'s shape if not. */
  authorized(request: FakeRequest, ctx: FakeContext): boolean;
  unauthorized(): FakeReply;
  /**
   * The source's 429, with its own headers (Retry-After, X-RateLimit-*...): beyond the budget, or a
   * spurious one (then `retryAfterMs` is the server's option, and `limitPerMinute` 0 when no budget is set).
   */
  rateLimited(retryAfterMs: number, limitPerMinute: number, ctx: FakeContext): FakeReply;
  /**
   * Headers every answer carries about the budget (X-RateLimit-Remaining...), if the source sends them;
   * asked only while a budget is set (`requestsPerMinute`). The reply's own headers win over them.
   */
  rateHeaders?(remaining: number, limitPerMinute: number, resetAtMs: number, ctx: FakeContext): Record<string, string>;
  /**
   * The source's own transient failure for a request (`faults.sourceError`), `pick` in [0, 1) choosing
   * among its kinds; undefined where the source has none for that request (its file host, say).
   */
  transientError?(request: FakeRequest, pick: number, ctx: FakeContext): FakeReply | undefined;
  /** The answer to a request, or undefined for the server's 404. */
  route(request: FakeRequest, ctx: FakeContext): FakeReply | undefined | Promise<FakeReply | undefined>;
}
