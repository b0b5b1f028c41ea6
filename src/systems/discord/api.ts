/**
 * Discord API v10's paths and answer shapes the pull reads (https://discord.com/developers/docs):
 * every request goes through the run's source client (its limiter and the one retry loop) and this
 * source's bucket gate. A 403 on a list the bot may not read (members without the Server Members
 * intent, private threads without Manage Threads, a channel it cannot view) is "none", said once.
 */
import { SourceError } from '../../errors.js';
import type { SourceAnswer, SourceHttp } from '../../http/source-client.js';
import { BucketGate } from './buckets.js';

export interface DiscordUser {
  id: string;
  username?: string;
  global_name?: string | null;
  discriminator?: string;
  avatar?: string | null;
  bot?: boolean;
}

export interface DiscordMember {
  user?: DiscordUser;
  nick?: string | null;
  joined_at?: string;
}

export interface DiscordChannel {
  id: string;
  type: number;
  name?: string;
  topic?: string | null;
  parent_id?: string | null;
  position?: number;
  thread_metadata?: { archived?: boolean; archive_timestamp?: string };
}

export interface DiscordMessage {
  id: string;
  type?: number;
  content?: string;
  timestamp?: string;
  edited_timestamp?: string | null;
  pinned?: boolean;
  author?: DiscordUser;
  attachments?: Array<{ id: string; filename?: string; size?: number; url?: string; content_type?: string }>;
  embeds?: Array<Record<string, unknown>>;
  mentions?: DiscordUser[];
  reactions?: Array<{ count?: number; emoji?: { id?: string | null; name?: string | null; animated?: boolean } }>;
  sticker_items?: Array<{ id: string; name?: string; format_type?: number }>;
  message_reference?: { message_id?: string; channel_id?: string; guild_id?: string };
}

export interface DiscordGuild {
  id: string;
  name?: string;
  icon?: string | null;
}

export interface ArchivedThreads {
  threads: DiscordChannel[];
  has_more: boolean;
}

/** A list the bot may not read: what it got, and whether Discord said no (403) or answered otherwise. */
export interface Readable<T> {
  value: T;
  forbidden: boolean;
  /** Discord's status; a 4xx other than 403 and 404 only where the caller took any refusal (`lenient`). */
  status: number;
  /** Discord's words of a refusal (`Cannot execute action on this channel type`), short. */
  said?: string;
}

/** Discord's JSON error code of a request Cloudflare blocks, "often resolved by setting a proper User Agent". */
const CLOUDFLARE_BLOCKED = 40333;

const PAGE = 100;
/** List Guild Members takes up to 1,000 a page. */
export const MEMBERS_PAGE = 1000;

export class DiscordApi {
  private readonly gate = new BucketGate();

  constructor(
    private readonly http: SourceHttp,
    private readonly stop: AbortSignal,
  ) {}

  application(): Promise<{ id?: string; name?: string; flags?: number }> {
    return this.read('/applications/@me', 'app') as Promise<{ flags?: number }>;
  }

  async guilds(): Promise<DiscordGuild[]> {
    return asArray(await this.read('/users/@me/guilds', 'me')) as DiscordGuild[];
  }

  guild(id: string): Promise<DiscordGuild> {
    return this.read(`/guilds/${id}`, id) as Promise<DiscordGuild>;
  }

  async channels(guild: string): Promise<DiscordChannel[]> {
    return asArray(await this.read(`/guilds/${guild}/channels`, guild)) as DiscordChannel[];
  }

  async activeThreads(guild: string): Promise<DiscordChannel[]> {
    const body = (await this.read(`/guilds/${guild}/threads/active`, guild)) as { threads?: unknown };
    return asArray(body?.threads) as DiscordChannel[];
  }

  /**
   * A channel's archived threads, newest archived first, before an archive time (ISO 8601). Discord
   * documents these lists for text and announcement channels, not what they answer on every kind of
   * channel: any refusal comes back with its status for the caller to name, never stops the pull.
   */
  async archivedThreads(
    channel: string,
    kind: 'public' | 'private',
    before?: string,
  ): Promise<Readable<ArchivedThreads>> {
    return this.threadList(`/channels/${channel}/threads/archived/${kind}`, channel, before);
  }

  /**
   * The archived private threads the bot joined, by thread id before one (List Joined Private Archived
   * Threads: needs Read Message History only, where `/threads/archived/private` needs Manage Threads).
   */
  joinedPrivateThreads(channel: string, before?: string): Promise<Readable<ArchivedThreads>> {
    return this.threadList(`/channels/${channel}/users/@me/threads/archived/private`, channel, before);
  }

  private async threadList(path: string, channel: string, before?: string): Promise<Readable<ArchivedThreads>> {
    const { body, ...rest } = await this.readable(path, channel, { before, limit: PAGE }, true);
    const b = (body ?? {}) as { threads?: unknown; has_more?: unknown };
    return { ...rest, value: { threads: asArray(b.threads) as DiscordChannel[], has_more: b.has_more === true } };
  }

  /** Up to 1,000 members by user id, after one. Needs the Server Members intent. */
  async members(guild: string, after: string): Promise<Readable<DiscordMember[]>> {
    const { body, ...rest } = await this.readable(`/guilds/${guild}/members`, guild, { limit: MEMBERS_PAGE, after });
    return { ...rest, value: asArray(body) as DiscordMember[] };
  }

  /**
   * The 100 messages right after a snowflake, oldest first (Discord answers newest first). Without
   * Read Message History Discord answers `200 []`, not a refusal (Get Channel Messages).
   */
  async messagesAfter(channel: string, after: string): Promise<Readable<DiscordMessage[]>> {
    const { body, ...rest } = await this.readable(`/channels/${channel}/messages`, channel, { limit: PAGE, after });
    return { ...rest, value: (asArray(body) as DiscordMessage[]).slice().reverse() };
  }

  private async read(path: string, major: string, query?: Record<string, string | number | undefined>) {
    return (await this.send(path, major, query)).body;
  }

  /** A GET whose 403 and 404 (with `lenient`, any refusal but 401 and 429) are an empty answer. */
  private async readable(
    path: string,
    major: string,
    query?: Record<string, string | number | undefined>,
    lenient = false,
  ): Promise<{ body: unknown; forbidden: boolean; status: number; said?: string }> {
    const answer = await this.send(path, major, query, lenient ? 'any' : 'listed');
    const refused = answer.status >= 400;
    const said = refused ? wordsOf(answer.body) : undefined;
    return { body: refused ? undefined : answer.body, forbidden: answer.status === 403, status: answer.status, said };
  }

  private async send(
    path: string,
    major: string,
    query: Record<string, string | number | undefined> | undefined,
    mayRefuse: 'none' | 'listed' | 'any' = 'none',
  ): Promise<SourceAnswer> {
    const route = path.replace(/\/\d{5,}/g, '/:id');
    for (;;) {
      const wait = this.gate.waitMs(route, major);
      if (wait <= 0 || this.stop.aborted) break;
      await sleep(wait, this.stop);
    }
    this.gate.take(route, major);
    return this.http.request({
      path,
      query,
      subject: `GET ${route}`,
      rateHeaders: (headers) => this.gate.observe(route, major, headers),
      judge: (answer) => {
        if (answer.status === 429) this.gate.limited(answer.body);
        if (answer.status === 403 && codeOf(answer.body) === CLOUDFLARE_BLOCKED) throw blockedByCloudflare(route);
        // Missing Access (50001) or a deleted channel: that list is empty for this bot, not a failed run.
        if (mayRefuse !== 'none' && (answer.status === 403 || answer.status === 404)) return { done: answer };
        const other = answer.status >= 400 && answer.status < 500 && answer.status !== 401 && answer.status !== 429;
        if (mayRefuse === 'any' && other) return { done: answer };
        return undefined;
      },
    });
  }
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const codeOf = (body: unknown): unknown =>
  typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;

function wordsOf(body: unknown): string | undefined {
  const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message.slice(0, 120) : undefined;
}

/** Not the token's fault: Discord's edge refused the request itself (the reference's User Agent section). */
function blockedByCloudflare(route: string): SourceError {
  return new SourceError('SOURCE_REFUSED', `discord: GET ${route}: blocked by Discord's Cloudflare (code 40333)`, {
    hint:
      'Discord blocks requests without a valid User-Agent or from an address it has limited; check a proxy ' +
      'that rewrites headers, or wait and run the same command again (docs/pull/discord.md)',
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
