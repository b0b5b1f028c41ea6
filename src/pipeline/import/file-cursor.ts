/**
 * Where a phase's reading of one file starts. A file read to its end and acknowledged whole by an
 * earlier run, with nothing of it still open, is not read again if it ends where it ended then, and is
 * read on from there if it grew: its records read before are counted as done earlier, as a reading from
 * the start would count them. Anything else (a file rewritten, edited near its end, truncated, a
 * format that cannot be entered in the middle) is read from its start, as before.
 */
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { FileProgress } from '../../checkpoint/file-progress.js';
import type { EntityName, MappedRecord } from '../../entities/types.js';
import type { RecordInput } from '../../sources/plan.js';
import { canReadOn, fileEndNow } from '../../sources/read-on.js';
import type { ReadEnd, ResumePoint } from '../../sources/types.js';
import type { RunEvents } from '../events.js';
import { lookAt } from '../unchanged-file.js';

/** A run of an entity's phase over one file: tiles the file's ordinals into batch ranges. */
export interface FileCursor {
  input: RecordInput;
  progress: FileProgress;
  /** Start of the next batch's range: every ordinal below it belongs to a range already handed out. */
  rangeStart: number;
  nextOrdinal: number;
  /** A problem of the file itself came up on this reading (its reject stays open while it does). */
  fileProblem: boolean;
  /** Read on from here, not from the start: the slots before it were done by an earlier run. */
  from?: ResumePoint;
  /** Not read at all: it ends where an earlier reading of it ended, every slot done. */
  unchanged?: boolean;
  /** Where this reading ended, when it got to the file's end (ReadOptions.onEnd). */
  ended?: ReadEnd;
  /** The newest `sentAt` of the slots met (`noteSentAt`): -Infinity for none yet, NaN once one had none. */
  newest: number;
}

export interface CursorRun {
  checkpoint: CheckpointStore;
  events: RunEvents;
}

export async function openCursor(run: CursorRun, entity: EntityName, input: RecordInput): Promise<FileCursor> {
  const found = await lookAt(run.checkpoint, entity, input);
  let progress = run.checkpoint.fileProgress(entity, input.display);
  if (found?.rewritten) {
    run.events.warning(
      `${input.display} changed in place since the last run: reading it again from the start ` +
        '(records the service already has count as already present)',
    );
    progress = run.checkpoint.resetFile(entity, input.display);
  }
  const from = found?.from;
  const start = from?.ordinal ?? 0;
  // Read on: the slots before were met by the reading that set the end (an older one kept no newest).
  const newest = from === undefined ? Number.NEGATIVE_INFINITY : (progress.data.newestSentAt ?? Number.NaN);
  const cursor: FileCursor = {
    input,
    progress,
    rangeStart: start,
    nextOrdinal: start,
    fileProblem: false,
    from,
    newest,
  };
  cursor.unchanged = found?.unchanged === true;
  if (cursor.unchanged) return cursor;
  if (found !== undefined) progress.data.fingerprint = found.now;
  progress.data.complete = false;
  if (from === undefined) {
    delete progress.data.end;
    delete progress.data.newestSentAt;
  }
  return cursor;
}

/**
 * The record slots of an input a reading would not read again (a file not changed since it was
 * read whole): its count for a progress bar's total without reading it.
 */
export async function doneSlots(run: CursorRun, entity: EntityName, input: RecordInput): Promise<number | undefined> {
  const found = await lookAt(run.checkpoint, entity, input);
  return found?.unchanged ? found.from?.ordinal : undefined;
}

/**
 * Counts a slot into the newest `sentAt` of the reading: a record's, or none for a slot that holds
 * no record or a record without one (a slot of unknown time: no window can leave the file unread).
 */
export function noteSentAt(cursor: FileCursor, slot: { ordinal: number; record: MappedRecord | undefined }): void {
  if (slot.ordinal < 0) return;
  const sentAt = slot.record?.payload.sentAt;
  cursor.newest = typeof sentAt === 'number' ? Math.max(cursor.newest, sentAt) : Number.NaN;
}

/**
 * After a reading to the file's end: where it ended, for the next run to skip it or read on from
 * there. Line 0 when the line there is not known (a preset's file, a JSON array, gzip): such a file
 * is skipped while it ends there still, and read whole once it grew.
 */
export async function recordEnd(cursor: FileCursor): Promise<void> {
  const { input, progress, ended } = cursor;
  delete progress.data.end;
  delete progress.data.newestSentAt;
  delete progress.data.readAt;
  if (!input.path) return;
  const readsOn = canReadOn(input.file);
  if (readsOn && ended === undefined) return;
  const line = readsOn && ended?.newline === true ? ended.line : 0;
  const end = await fileEndNow({ path: input.path, display: input.display }, line);
  // Grown while it was read: the bytes after the size taken at the start may have been read or not.
  if (end.byte !== progress.data.fingerprint?.size) return;
  progress.data.end = end;
  progress.data.readAt = Date.now();
  if (Number.isFinite(cursor.newest)) progress.data.newestSentAt = cursor.newest;
}
