/**
 * The fake world in Slack's shapes (https://docs.slack.dev/reference/objects/): users, conversations
 * of four kinds, messages with `ts`, threads (`thread_ts`, `reply_count`, `latest_reply`) and files
 * whose `url_private` points at the fake's own file host.
 */
import type { FakeChannel, FakeMessage, FakeUser, FakeWorld } from './types.js';

export const TEAM = 'T0FAKE0001';

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

export function renderUser(u: FakeUser): Record<string, unknown> {
  const handle = u.name.toLowerCase().replace(/[^a-z0-9._-]+/g, '.');
  return {
    id: u.id,
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
      ...(u.avatarUrl === undefined ? {} : { image_72: u.avatarUrl, image_192: u.avatarUrl }),
    },
  };
}

export function renderConversation(c: FakeChannel): Record<string, unknown> {
  const created = Math.floor(c.createdAtMs / 1000);
  if (c.kind === 'direct') {
    const other = c.members.find((m) => m.userId !== c.creatorId)?.userId ?? c.creatorId;
    return { id: c.id, created, is_im: true, is_org_shared: false, user: other, is_user_deleted: false };
  }
  const topic = { value: `${c.name} topic`, creator: c.creatorId, last_set: created };
  return {
    id: c.id,
    name: c.kind === 'group-direct' ? `mpdm-${c.name}-1` : c.name,
    is_channel: c.kind === 'public',
    is_group: c.kind === 'private',
    is_im: false,
    is_mpim: c.kind === 'group-direct',
    is_private: c.kind !== 'public',
    created,
    creator: c.creatorId,
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
  threads: Threads,
  origin: string,
): Record<string, unknown> {
  const ts = tsOf(m);
  let text = m.text;
  for (const id of m.mentions) {
    const name = world.user(id)?.name;
    if (name !== undefined) text = text.split(`@${name}`).join(`<@${id}>`);
  }
  const out: Record<string, unknown> = { type: 'message', user: m.senderId, text, ts, team: TEAM };
  if (m.parentId !== undefined) {
    const parent = world.indexOfId(m.channelId, m.parentId);
    if (parent >= 0) {
      const p = world.messageAt(m.channelId, parent);
      out.thread_ts = tsOf(p);
      out.parent_user_id = p.senderId;
    }
  } else {
    const replies = threads.repliesOf(m.channelId, m.id);
    if (replies.length > 0) {
      const list = replies.map((i) => world.messageAt(m.channelId, i));
      out.thread_ts = ts;
      out.reply_count = list.length;
      out.reply_users = [...new Set(list.map((r) => r.senderId))].slice(0, 5);
      out.reply_users_count = new Set(list.map((r) => r.senderId)).size;
      out.latest_reply = tsOf(list[list.length - 1]);
    }
  }
  if (m.editedAtMs !== undefined) out.edited = { user: m.senderId, ts: `${Math.floor(m.editedAtMs / 1000)}.000000` };
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
