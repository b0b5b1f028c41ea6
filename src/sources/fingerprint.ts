import { createHash } from 'node:crypto';
import { openFile } from './read-blocks.js';

const HEAD_BYTES = 64 * 1024;

export interface Fingerprint {
  size: number;
  /** sha256 (truncated) of the first min(size, 64 KiB) bytes. */
  head: string;
}

/**
 * Tells a file that grew (rows appended: read on from the checkpoint) from one rewritten in place
 * (read again from the start). Looks at the size and the head only, which stays cheap on a 10 GB file.
 * Returns the fingerprint to store for next time and whether the file changed under the old one.
 */
export async function checkFingerprint(
  file: { path: string; display: string },
  before: Fingerprint | undefined,
): Promise<{ now: Fingerprint; rewritten: boolean }> {
  const handle = await openFile(file);
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await handle.read(head, 0, head.length, 0);
    const now = { size, head: hash(head) };
    if (!before) return { now, rewritten: false };
    if (size < before.size) return { now, rewritten: true };
    // The old head covered only before.size bytes when the file was small: compare that prefix.
    const oldPrefix = before.size < head.length ? hash(head.subarray(0, before.size)) : now.head;
    return { now, rewritten: oldPrefix !== before.head };
  } finally {
    await handle.close();
  }
}

const hash = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 32);
