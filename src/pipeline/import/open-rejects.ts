import { createHash } from 'node:crypto';
import type { FileProgress } from '../../checkpoint/file-progress.js';
import type { SourceItem } from '../../entities/types.js';
import { contentHash } from '../../rules/content-hash.js';
import { rejectCanClear } from '../../rules/reject-classes.js';

/** What a slot acknowledged by an earlier run means now. */
export type AckedFate = 'done' | 'still-rejected' | 'retry';

/** A rejected slot's place, so the checkpoint can keep it open until its record gets in. */
export interface RejectedSlot {
  progress: FileProgress;
  ordinal: number;
  hash: string;
}

/** What a slot holds, as a short hash: a record's source text, or a bad line's problem. */
export function slotHash(item: SourceItem): string {
  // A record by its content hash: JSON.stringify overflows the stack on a value nested too deeply.
  const text = item.kind === 'record' ? `record ${contentHash(item.value)}` : `${item.rule}: ${item.message}`;
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/**
 * An acknowledged slot is done unless it was rejected and is still open. An open one is tried again
 * when its cause can have gone (rejectCanClear) or when the slot holds something else now (the user
 * fixed the line); otherwise it stays rejected, and the run says so.
 */
export function fateOfAcked(progress: FileProgress, ordinal: number, item: SourceItem): AckedFate {
  const open = progress.openAt(ordinal);
  if (open === undefined) return 'done';
  return rejectCanClear(open.code) || open.hash !== slotHash(item) ? 'retry' : 'still-rejected';
}
