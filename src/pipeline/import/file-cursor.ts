/**
 * Where a phase's reading of one file starts. A file read to its end and acknowledged whole by an
 * earlier run, with nothing of it still open, is not read again if it ends where it ended then, and is
 * read on from there if it grew: its records read before are counted as done earlier, as a reading from
 * the start would count them. Anything else (a file rewritten, edited near its end, truncated, a
 * format that cannot be entered in the middle) is read from its start, as before.
 */
import type { CheckpointStore } from '../../checkpoint/store.js';
import type { FileProgress } from '../../checkpoint/file-progress.js';
import type { EntityName } from '../../entities/types.js';
import { checkFingerprint, type Fingerprint } from '../../sources/fingerprint.js';
import type { RecordInput } from '../../sources/plan.js';
import { canReadOn, fileEndNow, stillEndsAt } from '../../sources/read-on.js';
import type { ReadEnd, ResumePoint } from '../../sources/types.js';
import type { RunEvents } from '../events.js';

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
}

export interface CursorRun {
  checkpoint: CheckpointStore;
  events: RunEvents;
}

export async function openCursor(run: CursorRun, entity: EntityName, input: RecordInput): Promise<FileCursor> {
  const found = await lookAt(run, entity, input);
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
  const cursor: FileCursor = { input, progress, rangeStart: start, nextOrdinal: start, fileProblem: false, from };
  cursor.unchanged = found?.unchanged === true;
  if (cursor.unchanged) return cursor;
  if (found !== undefined) progress.data.fingerprint = found.now;
  progress.data.complete = false;
  if (from === undefined) delete progress.data.end;
  return cursor;
}

/**
 * The record slots of an input a reading would not read again (a file not changed since it was
 * read whole): its count for a progress bar's total without reading it.
 */
export async function doneSlots(run: CursorRun, entity: EntityName, input: RecordInput): Promise<number | undefined> {
  const found = await lookAt(run, entity, input);
  return found?.unchanged ? found.from?.ordinal : undefined;
}

interface Found {
  now: Fingerprint;
  rewritten: boolean;
  from?: ResumePoint;
  unchanged?: boolean;
}

/** What the checkpoint and the file's fingerprint and end say of a file on disk; changes nothing. */
async function lookAt(run: CursorRun, entity: EntityName, input: RecordInput): Promise<Found | undefined> {
  if (!input.path) return undefined;
  const progress = run.checkpoint.fileProgress(entity, input.display);
  const { now, rewritten } = await checkFingerprint(
    { path: input.path, display: input.display },
    progress.data.fingerprint,
  );
  const end = progress.data.end;
  if (rewritten || end === undefined || !allDone(run.checkpoint, entity, progress)) return { now, rewritten };
  const at = await stillEndsAt({ path: input.path, display: input.display, csv: input.file?.format === 'csv' }, end);
  if (at === undefined) return { now, rewritten };
  const from = { byte: end.byte, line: end.line, ordinal: progress.data.watermark };
  if (at.size === end.byte) return { now, rewritten, from, unchanged: true };
  // Grown: read on from the end when the format allows it and the line there is known.
  return end.line > 0 && canReadOn(input.file) ? { now, rewritten, from } : { now, rewritten };
}

/**
 * Every slot of the file acknowledged by a reading to its end, none open, none skipped as too old,
 * and no parent held: reading it again could only count each slot as done earlier. Messages only:
 * the ids of users, groups and members are what later records' references are checked against, so
 * those files are read every run (they are small beside the messages).
 */
function allDone(checkpoint: CheckpointStore, entity: EntityName, progress: FileProgress): boolean {
  const { data } = progress;
  return (
    entity === 'messages' &&
    data.complete === true &&
    data.watermark > 0 &&
    data.acked.length === 0 &&
    data.open === undefined &&
    data.old === undefined &&
    Object.keys(checkpoint.blockedParents()).length === 0
  );
}

/**
 * After a reading to the file's end: where it ended, for the next run to skip it or read on from
 * there. Line 0 when the line there is not known (a preset's file, a JSON array, gzip): such a file
 * is skipped while it ends there still, and read whole once it grew.
 */
export async function recordEnd(cursor: FileCursor): Promise<void> {
  const { input, progress, ended } = cursor;
  delete progress.data.end;
  if (!input.path) return;
  const readsOn = canReadOn(input.file);
  if (readsOn && ended === undefined) return;
  const line = readsOn && ended?.newline === true ? ended.line : 0;
  const end = await fileEndNow({ path: input.path, display: input.display }, line);
  // Grown while it was read: the bytes after the size taken at the start may have been read or not.
  if (end.byte !== progress.data.fingerprint?.size) return;
  progress.data.end = end;
}
