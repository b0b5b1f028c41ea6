/**
 * The fake world of the live sources: users, channels and members made at start from the seed, and
 * messages made on demand from (channel, index), so a million of them cost no memory until asked for.
 * Each message's time is a closed formula of its index (strictly increasing in a channel), so finding
 * a time or an id is a binary search; messages added through the control route are kept in a list.
 */
import { mulberry32 } from '../../../dist/sandbox/fault-plan.js';
import { type ChannelPlan, fileBytes, MAX_FAKE_CHANNELS, MessageMaker, messageId, planOf } from './fake-messages.js';
import { idWidth, makeChannels, makeUsers, slug } from './fake-people.js';
import { ATTACHMENT_KINDS } from './fake-words.js';
import type { FakeChannel, FakeMember, FakeMessage, FakeUser, FakeWorld } from './types.js';

export { MAX_FAKE_CHANNELS };

/** The end of the generated history: fixed, so a seed makes the same world on any day. */
export const FAKE_NOW_MS = Date.UTC(2026, 10, 1);
export const FAKE_WORLD_DEFAULTS = { users: 50, channels: 20, messages: 3000, seed: 1 } as const;

export interface FakeWorldOptions {
  users?: number;
  channels?: number;
  messages?: number;
  seed?: number;
  /** The end of the generated history (default FAKE_NOW_MS). */
  nowMs?: number;
  /** The time of added users, members and messages (default the real clock). */
  clock?: () => number;
}

/** A control request the world refuses: the server answers it with `status`. */
export class FakeInputError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Splits `total` messages over the channels by seeded weights; #general (channel 0) talks most. */
function messageCounts(total: number, channels: number, seed: number): number[] {
  const random = mulberry32(seed ^ 0x5eed0003);
  const weights = Array.from({ length: channels }, (_, i) => (i === 0 ? 3 : 0.15 + random() ** 2 * 2));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  let left = total - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % channels, left--) counts[i]++;
  return counts;
}

export class GeneratedWorld implements FakeWorld {
  readonly users: FakeUser[];
  readonly channels: readonly FakeChannel[];
  readonly nowMs: number;
  private readonly seed: number;
  private readonly clock: () => number;
  private readonly plans: ChannelPlan[];
  private readonly byChannel = new Map<string, ChannelPlan>();
  private readonly byUser = new Map<string, FakeUser>();
  private readonly names = new Map<string, FakeUser>();
  private readonly maker: MessageMaker;
  private readonly memos = new Map<string, unknown>();

  constructor(options: FakeWorldOptions = {}) {
    const d = FAKE_WORLD_DEFAULTS;
    const [users, channels, messages] = [
      options.users ?? d.users,
      options.channels ?? d.channels,
      options.messages ?? d.messages,
    ];
    const seed = options.seed ?? d.seed;
    checkSize('users', users, 1);
    checkSize('channels', channels, 0, MAX_FAKE_CHANNELS);
    checkSize('messages', messages, 0);
    if (channels > 0 && users < 1) throw new RangeError('a channel needs users');
    this.seed = seed >>> 0;
    this.nowMs = options.nowMs ?? FAKE_NOW_MS;
    this.clock = options.clock ?? Date.now;
    this.maker = new MessageMaker(this.seed, this.nowMs, (id) => this.byUser.get(id)?.name);
    this.users = makeUsers(users, this.seed, this.nowMs);
    for (const user of this.users) this.indexUser(user);
    this.channels = makeChannels(channels, this.users, this.seed, this.nowMs);
    const counts = channels > 0 ? messageCounts(messages, channels, this.seed) : [];
    this.plans = this.channels.map((channel, index) => planOf(channel, index, counts[index], this.nowMs));
    for (const plan of this.plans) this.byChannel.set(plan.channel.id, plan);
  }

  private indexUser(user: FakeUser): void {
    this.byUser.set(user.id, user);
    if (!this.names.has(user.name)) this.names.set(user.name, user);
  }

  channel(id: string): FakeChannel | undefined {
    return this.byChannel.get(id)?.channel;
  }

  user(id: string): FakeUser | undefined {
    return this.byUser.get(id);
  }

  messageCount(channelId: string): number {
    const plan = this.byChannel.get(channelId);
    return plan ? plan.count + plan.added.length : 0;
  }

  /** Every message of the world, generated and added. */
  totalMessages(): number {
    let total = 0;
    for (const plan of this.plans) total += plan.count + plan.added.length;
    return total;
  }

  messageAt(channelId: string, index: number): FakeMessage {
    const plan = this.planFor(channelId);
    if (!Number.isInteger(index) || index < 0 || index >= plan.count + plan.added.length) {
      throw new RangeError(`channel ${channelId} has no message at ${index}`);
    }
    return index < plan.count ? this.maker.generate(plan, index) : plan.added[index - plan.count];
  }

  indexAtOrAfter(channelId: string, ms: number): number {
    const plan = this.byChannel.get(channelId);
    if (!plan) return 0;
    let lo = 0;
    let hi = plan.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.maker.timeAt(plan, mid) < ms) lo = mid + 1;
      else hi = mid;
    }
    if (lo < plan.count) return lo;
    let a = 0;
    let b = plan.added.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (plan.added[mid].sentAtMs < ms) a = mid + 1;
      else b = mid;
    }
    return plan.count + a;
  }

  indexOfId(channelId: string, id: string): number {
    const plan = this.byChannel.get(channelId);
    if (!plan || !/^\d{16}$/.test(id)) return -1;
    const seq = Number(id);
    if (seq % MAX_FAKE_CHANNELS !== plan.index) return -1;
    const index = this.indexAtOrAfter(channelId, Math.floor(seq / MAX_FAKE_CHANNELS));
    if (index >= plan.count + plan.added.length) return -1;
    return this.messageAt(channelId, index).id === id ? index : -1;
  }

  addMessage(input: { channelId: string; senderId: string; text: string; parentId?: string }): FakeMessage {
    const plan = this.byChannel.get(input.channelId);
    if (!plan) throw new FakeInputError(404, `no channel ${input.channelId}`);
    if (!this.byUser.has(input.senderId)) throw new FakeInputError(404, `no user ${input.senderId}`);
    if (typeof input.text !== 'string') throw new FakeInputError(400, 'text must be a string');
    if (input.parentId !== undefined && this.indexOfId(plan.channel.id, input.parentId) < 0) {
      throw new FakeInputError(404, `no message ${input.parentId} in ${input.channelId}`);
    }
    const total = plan.count + plan.added.length;
    const lastMs = total > 0 ? this.messageAt(plan.channel.id, total - 1).sentAtMs : plan.startMs;
    // The real now, unless the clock is behind the generated history: ids must keep their order.
    const sentAtMs = Math.max(this.clock(), lastMs + 1);
    const seq = sentAtMs * MAX_FAKE_CHANNELS + plan.index;
    const mentions = [...input.text.matchAll(/@([\w.-]+)/g)]
      .map((m) => (this.names.get(m[1]) ?? this.names.get(m[1].replace(/[.-]+$/, '')))?.id)
      .filter((id): id is string => id !== undefined);
    const message: FakeMessage = {
      id: messageId(seq),
      seq,
      channelId: plan.channel.id,
      senderId: input.senderId,
      text: input.text,
      sentAtMs,
      mentions: [...new Set(mentions)],
      attachments: [],
    };
    if (input.parentId !== undefined) message.parentId = input.parentId;
    plan.added.push(message);
    return message;
  }

  addUser(input: { id?: string; name: string }): FakeUser {
    if (typeof input.name !== 'string' || input.name === '') throw new FakeInputError(400, 'name is required');
    let id = input.id;
    // The next free number: a user added earlier with its own id may hold the obvious one.
    for (let n = this.users.length + 1; id === undefined; n++) {
      const next = slug('user', n, idWidth(this.users.length));
      if (!this.byUser.has(next)) id = next;
    }
    if (this.byUser.has(id)) throw new FakeInputError(409, `user ${id} exists`);
    const now = this.clock();
    const user: FakeUser = { id, name: input.name, createdAtMs: now, updatedAtMs: now };
    this.users.push(user);
    this.indexUser(user);
    return user;
  }

  addMember(channelId: string, userId: string): FakeMember {
    const channel = this.byChannel.get(channelId)?.channel;
    if (!channel) throw new FakeInputError(404, `no channel ${channelId}`);
    if (!this.byUser.has(userId)) throw new FakeInputError(404, `no user ${userId}`);
    const existing = channel.members.find((m) => m.userId === userId);
    if (existing) return existing;
    const member: FakeMember = { userId, joinedAtMs: this.clock(), role: 'member' };
    channel.members.push(member);
    return member;
  }

  deleteChannel(channelId: string): FakeChannel {
    const channel = this.byChannel.get(channelId)?.channel;
    if (!channel) throw new FakeInputError(404, `no channel ${channelId}`);
    channel.deletedAtMs ??= this.clock();
    return channel;
  }

  memo<T>(key: string, make: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, make());
    return this.memos.get(key) as T;
  }

  media(id: string): { bytes: Buffer; contentType: string } | undefined {
    const avatar = /^avatar-(.+)$/.exec(id);
    if (avatar)
      return this.byUser.has(avatar[1]) ? { bytes: fileBytes(0, 256, id), contentType: 'image/png' } : undefined;
    const file = /^file-(\d{16})-(\d)$/.exec(id);
    if (!file) return undefined;
    const seq = Number(file[1]);
    const plan = this.plans[seq % MAX_FAKE_CHANNELS];
    const index = plan ? this.indexOfId(plan.channel.id, file[1]) : -1;
    if (index < 0) return undefined;
    const attachment = this.messageAt(plan.channel.id, index).attachments.find((a) => a.id === id);
    if (!attachment) return undefined;
    const kind = ATTACHMENT_KINDS.findIndex((k) => k.contentType === attachment.contentType);
    return { bytes: fileBytes(kind, attachment.size, id), contentType: attachment.contentType };
  }

  private planFor(channelId: string): ChannelPlan {
    const plan = this.byChannel.get(channelId);
    if (!plan) throw new RangeError(`no channel ${channelId}`);
    return plan;
  }
}

function checkSize(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`,
    );
  }
}
