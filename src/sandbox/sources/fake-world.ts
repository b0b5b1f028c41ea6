/**
 * The fake world of the live sources: users, channels and members made at start from the seed, and
 * messages made on demand from (channel, index), so a million of them cost no memory until asked for.
 * Each message's time is a closed formula of its index (strictly increasing in a channel), so finding
 * a time or an id is a binary search; messages added through the control route are kept in a list.
 */
import { ATTACHMENT_KINDS, EMOJI, WORDS } from './fake-words.js';
import { idWidth, makeChannels, makeUsers, slug } from './fake-people.js';
import { mulberry32 } from '../fault-plan.js';
import type { FakeAttachment, FakeChannel, FakeMember, FakeMessage, FakeUser, FakeWorld } from './types.js';

/** The end of the generated history: fixed, so a seed makes the same world on any day. */
export const FAKE_NOW_MS = Date.UTC(2026, 10, 1);
export const FAKE_WORLD_DEFAULTS = { users: 50, channels: 20, messages: 3000, seed: 1 } as const;
/** Message ids hold the channel's index in their low 12 bits (`seq = ms * 4096 + index`). */
export const MAX_FAKE_CHANNELS = 4096;

const REPLY_SHARE = 0.12;
const SALT_JITTER = 0x1a77e4;
const SALT_REPLY = 0x4e91c3;

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

/** A 32-bit mix of three numbers (murmur3's finaliser over an FNV-style fold). */
function hash3(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(c + 0x165667b1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const unit = (n: number): number => n / 4_294_967_296;
const messageId = (seq: number): string => String(seq).padStart(16, '0');

interface ChannelPlan {
  channel: FakeChannel;
  index: number;
  /** Generated messages; added ones follow in `added`. */
  count: number;
  startMs: number;
  stepMs: number;
  jitter: boolean;
  added: FakeMessage[];
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
    this.users = makeUsers(users, this.seed, this.nowMs);
    for (const user of this.users) this.indexUser(user);
    this.channels = makeChannels(channels, this.users, this.seed, this.nowMs);
    const counts = channels > 0 ? messageCounts(messages, channels, this.seed) : [];
    this.plans = this.channels.map((channel, index) => this.planOf(channel, index, counts[index]));
    for (const plan of this.plans) this.byChannel.set(plan.channel.id, plan);
  }

  private planOf(channel: FakeChannel, index: number, count: number): ChannelPlan {
    const endMs = this.nowMs - 60_000;
    let startMs = channel.createdAtMs + 3_600_000;
    // At least 1 ms between two messages of a channel, 2 when jittered, so times strictly increase.
    if (count > 0 && (endMs - startMs) / count < 1) startMs = endMs - count;
    const stepMs = count > 0 ? (endMs - startMs) / count : 0;
    return { channel, index, count, startMs, stepMs, jitter: stepMs >= 2, added: [] };
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
    return index < plan.count ? this.generate(plan, index) : plan.added[index - plan.count];
  }

  indexAtOrAfter(channelId: string, ms: number): number {
    const plan = this.byChannel.get(channelId);
    if (!plan) return 0;
    let lo = 0;
    let hi = plan.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.timeAt(plan, mid) < ms) lo = mid + 1;
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
      .map((m) => this.names.get(m[1])?.id)
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
    const id = input.id ?? slug('user', this.users.length + 1, idWidth(this.users.length));
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

  private timeAt(plan: ChannelPlan, i: number): number {
    const jitter = plan.jitter ? unit(hash3(this.seed ^ SALT_JITTER, plan.index, i)) * 0.5 : 0;
    return plan.startMs + Math.floor((i + jitter) * plan.stepMs);
  }

  private isReply(plan: ChannelPlan, i: number): boolean {
    return i > 0 && unit(hash3(this.seed ^ SALT_REPLY, plan.index, i)) < REPLY_SHARE;
  }

  private generate(plan: ChannelPlan, i: number): FakeMessage {
    const random = mulberry32(hash3(this.seed, plan.index, i));
    const sentAtMs = this.timeAt(plan, i);
    const seq = sentAtMs * MAX_FAKE_CHANNELS + plan.index;
    const id = messageId(seq);
    const { members } = plan.channel;
    const senderId = members[Math.floor(random() * members.length)].userId;
    const mentions: string[] = [];
    if (members.length > 1 && random() < 0.15) {
      const count = random() < 0.3 ? 2 : 1;
      for (let k = 0; k < count * 3 && mentions.length < count; k++) {
        const other = members[Math.floor(random() * members.length)].userId;
        if (other !== senderId && !mentions.includes(other)) mentions.push(other);
      }
    }
    const message: FakeMessage = {
      id,
      seq,
      channelId: plan.channel.id,
      senderId,
      text: this.text(random, mentions),
      sentAtMs,
      mentions,
      attachments: random() < 0.06 ? attachmentsOf(id, random) : [],
    };
    if (this.isReply(plan, i)) {
      let parent = i - 1 - Math.floor(random() * Math.min(i, 15));
      while (this.isReply(plan, parent)) parent--;
      message.parentId = this.messageIdAt(plan, parent);
    }
    if (random() < 0.04)
      message.editedAtMs = Math.min(sentAtMs + 60_000 + Math.floor(random() * 3_600_000), this.nowMs);
    return message;
  }

  private messageIdAt(plan: ChannelPlan, i: number): string {
    return messageId(this.timeAt(plan, i) * MAX_FAKE_CHANNELS + plan.index);
  }

  private text(random: () => number, mentions: readonly string[]): string {
    const sentence = () => {
      const length = 3 + Math.floor(random() * 10);
      const words: string[] = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]);
      words[0] = words[0][0].toUpperCase() + words[0].slice(1);
      return `${words.join(' ')}${random() < 0.1 ? ` ${EMOJI[Math.floor(random() * EMOJI.length)]}` : ''}`;
    };
    const at = mentions.map((id) => `@${this.byUser.get(id)?.name ?? id}`).join(' ');
    const body = random() < 0.03 ? `${sentence()}\n${sentence()}` : sentence();
    return at ? `${at} ${body}` : body;
  }
}

function attachmentsOf(messageId: string, random: () => number): FakeAttachment[] {
  const count = random() < 0.2 ? 2 : 1;
  return Array.from({ length: count }, (_, k) => {
    const kind = ATTACHMENT_KINDS[Math.floor(random() * ATTACHMENT_KINDS.length)];
    const id = `file-${messageId}-${k}`;
    const size = 200 + Math.floor(random() * 4000);
    return { id, name: kind.name, contentType: kind.contentType, size, path: `/__fake/media/${id}` };
  });
}

/** `size` bytes that start as a file of the kind does (a PNG signature, `%PDF`), then filler. */
function fileBytes(kind: number, size: number, id: string): Buffer {
  const bytes = Buffer.alloc(size, id.length % 2 === 0 ? 0x2e : 0x2d);
  ATTACHMENT_KINDS[kind].magic.copy(bytes, 0, 0, Math.min(size, ATTACHMENT_KINDS[kind].magic.length));
  return bytes;
}

function checkSize(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`,
    );
  }
}
