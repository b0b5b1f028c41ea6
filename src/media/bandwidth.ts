/**
 * A byte budget per second shared by every download of the run: each chunk reserves its share of
 * the timeline and waits for its turn, so the sum of all downloads stays at `bytesPerSecond`.
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { Clock } from '../clock.js';

export class Bandwidth {
  private next = 0;

  /** 0: no limit. */
  constructor(
    private readonly bytesPerSecond: number,
    private readonly clock: Clock,
  ) {}

  async take(bytes: number, signal?: AbortSignal): Promise<void> {
    if (this.bytesPerSecond <= 0) return;
    const now = this.clock.now();
    const start = Math.max(this.next, now);
    this.next = start + (bytes * 1000) / this.bytesPerSecond;
    if (start > now) await this.clock.sleep(start - now, signal);
  }

  /** A pass-through stream that paces what flows through it. */
  pace(signal?: AbortSignal): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        this.take(chunk.length, signal).then(
          () => done(null, chunk),
          (err: unknown) => done(err as Error),
        );
      },
    });
  }
}
