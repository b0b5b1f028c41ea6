/**
 * Whether a file was read whole by an earlier import and is not changed since: the one test of it,
 * by which import does not read such a file again and a verify with a window leaves an old one
 * unread.
 */
import type { FileProgressData } from '../checkpoint/file-progress.js';
import type { CheckpointStore } from '../checkpoint/store.js';
import type { EntityName } from '../entities/types.js';
import { checkFingerprint, type Fingerprint } from '../sources/fingerprint.js';
import type { RecordInput } from '../sources/plan.js';
import { canReadOn, stillEndsAt } from '../sources/read-on.js';
import type { ResumePoint } from '../sources/types.js';

/**
 * For a file import does not read again (not changed since a reading to its end, every slot
 * acknowledged), the newest `sentAt` of its messages when that reading knew it, and when that reading
 * ended; undefined for any other file, and for one a look at cannot open. Changes nothing in the
 * checkpoint.
 */
export async function newestOfUnchanged(
  checkpoint: CheckpointStore,
  entity: EntityName,
  input: RecordInput,
): Promise<{ newest: number; readAt?: number } | undefined> {
  const found = await lookAt(checkpoint, entity, input).catch(() => undefined);
  if (found?.unchanged !== true) return undefined;
  const stored = checkpoint.storedFile(entity, input.display);
  const newest = stored?.newestSentAt;
  if (typeof newest !== 'number' || !Number.isFinite(newest)) return undefined;
  return { newest, readAt: stored?.readAt };
}

export interface Found {
  now: Fingerprint;
  rewritten: boolean;
  from?: ResumePoint;
  unchanged?: boolean;
}

/**
 * What the checkpoint and the file's fingerprint and end say of a file on disk (import's
 * file-cursor.ts reads on from `from`, or not at all when `unchanged`); changes nothing.
 */
export async function lookAt(
  checkpoint: CheckpointStore,
  entity: EntityName,
  input: RecordInput,
): Promise<Found | undefined> {
  if (!input.path) return undefined;
  const data = checkpoint.storedFile(entity, input.display);
  const { now, rewritten } = await checkFingerprint({ path: input.path, display: input.display }, data?.fingerprint);
  const end = data?.end;
  if (rewritten || data === undefined || end === undefined || !allDone(checkpoint, entity, data))
    return { now, rewritten };
  const at = await stillEndsAt({ path: input.path, display: input.display, csv: input.file?.format === 'csv' }, end);
  if (at === undefined) return { now, rewritten };
  const from = { byte: end.byte, line: end.line, ordinal: data.watermark };
  if (at.size === end.byte) return { now, rewritten, from, unchanged: true };
  // Grown: read on from the end when the format allows it and the line there is known.
  return end.line > 0 && canReadOn(input.file) ? { now, rewritten, from } : { now, rewritten };
}

/**
 * Every slot of the file acknowledged by a reading to its end, none open, none skipped as too old,
 * and no parent holding messages back: reading it again could only count each slot as done earlier.
 * A parent in the table that holds none (a two-person conversation skipped as a group: its messages go
 * user to user) keeps nothing to send later. Messages only:
 * the ids of users, groups and members are what later records' references are checked against, so
 * those files are read every run (they are small beside the messages).
 */
function allDone(checkpoint: CheckpointStore, entity: EntityName, data: Readonly<FileProgressData>): boolean {
  return (
    entity === 'messages' &&
    data.complete === true &&
    data.watermark > 0 &&
    data.acked.length === 0 &&
    data.open === undefined &&
    data.old === undefined &&
    Object.values(checkpoint.snapshot.blocked ?? {}).every((mark) => (mark.held.messages ?? 0) === 0)
  );
}
