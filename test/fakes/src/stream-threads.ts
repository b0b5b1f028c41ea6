/**
 * Which messages of a fake channel are thread replies, by parent: Stream's channel query leaves replies
 * out (they come from `/messages/{id}/replies`) and counts them on their parent (`reply_count`). Built
 * once per channel by one pass over its messages, then extended as messages are added (the world only
 * appends), so paging a big channel stays linear.
 */
import type { FakeWorld } from './types.js';

interface ChannelThreads {
  /** Messages of the channel looked at so far. */
  seen: number;
  /** Parent id -> the indexes of its replies, oldest first. */
  replies: Map<string, number[]>;
}

export class ThreadIndex {
  private readonly byChannel = new Map<string, ChannelThreads>();
  /** Parent message id -> its channel (world id), learnt as parents are indexed. */
  private readonly channelOfParent = new Map<string, string>();

  constructor(private readonly world: FakeWorld) {}

  private of(channelId: string): ChannelThreads {
    let t = this.byChannel.get(channelId);
    if (t === undefined) {
      t = { seen: 0, replies: new Map() };
      this.byChannel.set(channelId, t);
    }
    const count = this.world.messageCount(channelId);
    for (; t.seen < count; t.seen++) {
      const m = this.world.messageAt(channelId, t.seen);
      if (m.parentId === undefined) continue;
      const list = t.replies.get(m.parentId) ?? [];
      list.push(t.seen);
      t.replies.set(m.parentId, list);
      this.channelOfParent.set(m.parentId, channelId);
    }
    return t;
  }

  replyCount(channelId: string, parentId: string): number {
    return this.of(channelId).replies.get(parentId)?.length ?? 0;
  }

  /** The indexes of a parent's replies and their channel, or undefined for a message with none. */
  repliesOf(parentId: string): { channelId: string; indexes: number[] } | undefined {
    let channelId = this.channelOfParent.get(parentId);
    if (channelId === undefined) {
      // A thread started after the channel was indexed: bring every channel up to date once.
      for (const c of this.world.channels) this.of(c.id);
      channelId = this.channelOfParent.get(parentId);
      if (channelId === undefined) return undefined;
    }
    return { channelId, indexes: this.of(channelId).replies.get(parentId) ?? [] };
  }
}
