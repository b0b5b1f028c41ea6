/**
 * The fake world in Slack's shapes (https://docs.slack.dev/reference/objects/): users, conversations
 * of four kinds, messages with `ts`, threads (`thread_ts`, `reply_count`, `latest_reply`) and files
 * whose `url_private` points at the fake's own file host.
 */
import type { FakeChannel, FakeMessage, FakeUser, FakeWorld } from './types.js';

export const TEAM = 'T0FAKE0001';

/** Slack's id prefixes: users U, public and private channels C, DMs D, group DMs G. */
const CHANNEL_PREFIX: Record<FakeChannel['kind'], string> = {
  public: 'C',
  private: 'C',
  direct: 'D',
  'group-direct': 'G',
};

/**
 * The world's plain ids (`user-0001`, `channel-0003`) as Slack writes ids (`U00000001`, `D00000003`):
 * by place in the world's lists, which only grow, so an id never changes while the fake runs.
 */
export class SlackIds {
  private readonly toSlack = new Map<string, string>();
  private readonly toWorld = new Map<string, string>();
  private users = 0;
  private channels = 0;

  constructor(private readonly world: FakeWorld) {}

  user(worldId: string): string {
    this.learn();
    return this.toSlack.get(`u:${worldId}`) ?? worldId;
  }

  channel(worldId: string): string {
    this.learn();
    return this.toSlack.get(`c:${worldId}`) ?? worldId;
  }

  /** The world's id of a Slack id, or undefined when none has it. */
  worldOf(slackId: string): string | undefined {
    this.learn();
    return this.toWorld.get(slackId);
  }

  private learn(): void {
    const { users, channels } = this.world;
    for (; this.users < users.length; this.users++) this.pair('u', users[this.users].id, 'U', this.users);
    for (; this.channels < channels.length; this.channels++) {
      const c = channels[this.channels];
      this.pair('c', c.id, CHANNEL_PREFIX[c.kind], this.channels);
    }
  }

  private pair(kind: string, worldId: string, prefix: string, index: number): void {
    const slackId = `${prefix}${(index + 1).toString(36).toUpperCase().padStart(8, '0')}`;
    this.toSlack.set(`${kind}:${worldId}`, slackId);
    this.toWorld.set(slackId, worldId);
  }
}

/** conversations.list's `types` for each kind of the world's channels. */
export const SLACK_TYPE: Record<FakeChannel['kind'], string> = {
  public: 'public_channel',
  private: 'private_channel',
  'group-direct': 'mpim',
  direct: 'im',
};

/**
 * A message's `ts`: seconds, then six digits of microseconds, unique within a conversation. The
 * world's times are milliseconds; the last three digits are the message's place in the send order,
 * so two messages of one millisecond still differ.
 */
export function tsOf(m: FakeMessage): string {
  const micros = (m.sentAtMs % 1000) * 1000 + (m.seq % 1000);
  return `${Math.floor(m.sentAtMs / 1000)}.${String(micros).padStart(6, '0')}`;
}

/** The index of the message whose ts is `ts` in a channel, or -1. */
export function indexOfTs(world: FakeWorld, channelId: string, ts: string): number {
  const ms = Math.floor(Number(ts) * 1000);
  if (!Number.isFinite(ms)) return -1;
  const count = world.messageCount(channelId);
  for (let i = world.indexAtOrAfter(channelId, ms); i < count; i++) {
    const m = world.messageAt(channelId, i);
    if (m.sentAtMs > ms) break;
    if (tsOf(m) === ts) return i;
  }
  return -1;
}

/** Each channel's thread replies by parent id, learnt by one scan and extended as messages arrive. */
export class Threads {
  private readonly byChannel = new Map<string, { scanned: number; replies: Map<string, number[]> }>();

  constructor(private readonly world: FakeWorld) {}

  /** The indexes of a parent's replies, in send order. */
  repliesOf(channelId: string, parentId: string): readonly number[] {
    return this.of(channelId).get(parentId) ?? [];
  }

  private of(channelId: string): Map<string, number[]> {
    let entry = this.byChannel.get(channelId);
    if (entry === undefined) this.byChannel.set(channelId, (entry = { scanned: 0, replies: new Map() }));
    const count = this.world.messageCount(channelId);
    for (; entry.scanned < count; entry.scanned++) {
      const m = this.world.messageAt(channelId, entry.scanned);
      if (m.parentId === undefined) continue;
      const list = entry.replies.get(m.parentId);
      if (list === undefined) entry.replies.set(m.parentId, [entry.scanned]);
      else list.push(entry.scanned);
    }
    return entry.replies;
  }
}

export function renderUser(u: FakeUser, ids: SlackIds, origin: string): Record<string, unknown> {
  const avatar = u.avatarUrl === undefined ? undefined : `${origin}${u.avatarUrl}`;
  const handle = u.name.toLowerCase().replace(/[^a-z0-9._-]+/g, '.');
  return {
    id: ids.user(u.id),
    team_id: TEAM,
    name: handle,
    deleted: u.deactivated === true,
    real_name: u.name,
    tz: 'Europe/London',
    is_admin: false,
    is_owner: false,
    is_bot: u.bot === true,
    updated: Math.floor(u.updatedAtMs / 1000),
    profile: {
      real_name: u.name,
      display_name: handle,
      ...(avatar === undefined ? {} : { image_72: avatar, image_192: avatar }),
    },
  };
}

export function renderConversation(c: FakeChannel, ids: SlackIds): Record<string, unknown> {
  const created = Math.floor(c.createdAtMs / 1000);
  const id = ids.channel(c.id);
  if (c.kind === 'direct') {
    const other = c.members.find((m) => m.userId !== c.creatorId)?.userId ?? c.creatorId;
    return { id, created, is_im: true, is_org_shared: false, user: ids.user(other), is_user_deleted: false };
  }
  const creator = ids.user(c.creatorId);
  const topic = { value: `${c.name} topic`, creator, last_set: created };
  return {
    id,
    name: c.kind === 'group-direct' ? `mpdm-${c.name.replace(/,/g, '--')}-1` : c.name,
    is_channel: c.kind === 'public',
    is_group: c.kind === 'private',
    is_im: false,
    is_mpim: c.kind === 'group-direct',
    is_private: c.kind !== 'public',
    created,
    creator,
    is_archived: false,
    is_general: false,
    is_member: true,
    updated: c.updatedAtMs,
    topic,
    purpose: { value: '', creator: '', last_set: 0 },
    num_members: c.members.length,
  };
}

/** A message as history and replies list it; `origin` is the fake's, for the files' URLs. */
export function renderMessage(
  m: FakeMessage,
  world: FakeWorld,
  at: { threads: Threads; ids: SlackIds; origin: string },
): Record<string, unknown> {
  const { threads, ids, origin } = at;
  const ts = tsOf(m);
  let text = m.text;
  for (const id of m.mentions) {
    const name = world.user(id)?.name;
    if (name !== undefined) text = text.split(`@${name}`).join(`<@${ids.user(id)}>`);
  }
  const out: Record<string, unknown> = { type: 'message', user: ids.user(m.senderId), text, ts, team: TEAM };
  if (m.parentId !== undefined) {
    const parent = world.indexOfId(m.channelId, m.parentId);
    if (parent >= 0) {
      const p = world.messageAt(m.channelId, parent);
      out.thread_ts = tsOf(p);
      out.parent_user_id = ids.user(p.senderId);
    }
  } else {
    const replies = threads.repliesOf(m.channelId, m.id);
    if (replies.length > 0) {
      const list = replies.map((i) => world.messageAt(m.channelId, i));
      out.thread_ts = ts;
      out.reply_count = list.length;
      out.reply_users = [...new Set(list.map((r) => ids.user(r.senderId)))].slice(0, 5);
      out.reply_users_count = new Set(list.map((r) => r.senderId)).size;
      out.latest_reply = tsOf(list[list.length - 1]);
    }
  }
  if (m.editedAtMs !== undefined)
    out.edited = { user: ids.user(m.senderId), ts: `${Math.floor(m.editedAtMs / 1000)}.000000` };
  if (m.attachments.length > 0) {
    out.files = m.attachments.map((a) => ({
      id: a.id,
      created: Math.floor(m.sentAtMs / 1000),
      name: a.name,
      title: a.name,
      mimetype: a.contentType,
      filetype: a.name.includes('.') ? a.name.split('.').pop() : 'binary',
      size: a.size,
      mode: 'hosted',
      is_external: false,
      url_private: `${origin}/files-pri/${TEAM}-${a.id}/${encodeURIComponent(a.name)}`,
      url_private_download: `${origin}/files-pri/${TEAM}-${a.id}/download/${encodeURIComponent(a.name)}`,
    }));
    out.upload = true;
  }
  return out;
}
