/**
 * The messages of the fake world, made from (channel, index) alone: a message's time is a closed
 * formula of its index (strictly increasing in a channel, so a time or an id is a binary search away),
 * and everything else is drawn from a stream seeded by (seed, channel, index).
 */
import { mulberry32 } from '../../../dist/sandbox/fault-plan.js';
import { ATTACHMENT_KINDS, EMOJI, WORDS } from './fake-words.js';
import type { FakeAttachment, FakeChannel, FakeMessage } from './types.js';

/** Message ids hold the channel's index in their low 12 bits (`seq = ms * 4096 + index`). */
export const MAX_FAKE_CHANNELS = 4096;

const REPLY_SHARE = 0.12;
const SALT_JITTER = 0x1a77e4;
const SALT_REPLY = 0x4e91c3;

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
export const messageId = (seq: number): string => String(seq).padStart(16, '0');

export interface ChannelPlan {
  channel: FakeChannel;
  index: number;
  /** Generated messages; added ones follow in `added`. */
  count: number;
  startMs: number;
  stepMs: number;
  jitter: boolean;
  /** The members there at the start: generated messages come from them only, whoever joins later. */
  firstMembers: number;
  added: FakeMessage[];
}

/** Where a channel's generated messages sit in time: from `startMs`, one per `stepMs`, up to a minute before now. */
export function planOf(channel: FakeChannel, index: number, count: number, nowMs: number): ChannelPlan {
  const endMs = nowMs - 60_000;
  let startMs = channel.createdAtMs + 3_600_000;
  // At least 1 ms between two messages of a channel, 2 when jittered, so times strictly increase.
  if (count > 0 && (endMs - startMs) / count < 1) startMs = endMs - count;
  const stepMs = count > 0 ? (endMs - startMs) / count : 0;
  return {
    channel,
    index,
    count,
    startMs,
    stepMs,
    jitter: stepMs >= 2,
    firstMembers: channel.members.length,
    added: [],
  };
}

/** Makes a channel's generated messages; the same (seed, channel, index) always gives the same message. */
export class MessageMaker {
  constructor(
    private readonly seed: number,
    private readonly nowMs: number,
    private readonly nameOf: (userId: string) => string | undefined,
  ) {}

  timeAt(plan: ChannelPlan, i: number): number {
    const jitter = plan.jitter ? unit(hash3(this.seed ^ SALT_JITTER, plan.index, i)) * 0.5 : 0;
    return plan.startMs + Math.floor((i + jitter) * plan.stepMs);
  }

  private isReply(plan: ChannelPlan, i: number): boolean {
    return i > 0 && unit(hash3(this.seed ^ SALT_REPLY, plan.index, i)) < REPLY_SHARE;
  }

  generate(plan: ChannelPlan, i: number): FakeMessage {
    const random = mulberry32(hash3(this.seed, plan.index, i));
    const sentAtMs = this.timeAt(plan, i);
    const seq = sentAtMs * MAX_FAKE_CHANNELS + plan.index;
    const id = messageId(seq);
    const { members } = plan.channel;
    const n = plan.firstMembers;
    const senderId = members[Math.floor(random() * n)].userId;
    const mentions: string[] = [];
    if (n > 1 && random() < 0.15) {
      const count = random() < 0.3 ? 2 : 1;
      for (let k = 0; k < count * 3 && mentions.length < count; k++) {
        const other = members[Math.floor(random() * n)].userId;
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
    const at = mentions.map((id) => `@${this.nameOf(id) ?? id}`).join(' ');
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
export function fileBytes(kind: number, size: number, id: string): Buffer {
  const bytes = Buffer.alloc(size, id.length % 2 === 0 ? 0x2e : 0x2d);
  ATTACHMENT_KINDS[kind].magic.copy(bytes, 0, 0, Math.min(size, ATTACHMENT_KINDS[kind].magic.length));
  return bytes;
}
