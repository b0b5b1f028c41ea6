/** The checkpoint on disk: written atomically, read back checked, and owned by one migration. */
import fs from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import path from 'node:path';
import { CheckpointError } from '../errors.js';
import {
  CHECKPOINT_VERSION,
  EARLIER_ID_RULE,
  type CheckpointData,
  type CheckpointIdentity,
} from './checkpoint-data.js';
import { fsReason, makeFolderFor, STATE_FILE_MODE } from './state-files.js';

// The callback API through promisify: plain descriptors, no FileHandle object (and its GC
// bookkeeping). With `checkpointIntervalMs` 0 a write follows every acknowledged batch.
const openFd = promisify(fs.open);
const writeFd = promisify(fs.write);
const fsyncFd = promisify(fs.fsync);
const closeFd = promisify(fs.close);
const renameFile = promisify(fs.rename);

export async function writeAtomically(target: string, text: string, syncDirectory: boolean): Promise<void> {
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    // The first write of a run may go into a folder that does not exist yet (a fresh CI cache).
    if (syncDirectory) await makeFolderFor(target);
    // The rename gives the checkpoint the temp file's mode.
    const fd = await openFd(tmp, 'w', STATE_FILE_MODE);
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length; ) {
        done += (await writeFd(fd, bytes, done, bytes.length - done, done)).bytesWritten;
      }
      await fsyncFd(fd);
    } finally {
      await closeFd(fd);
    }
    await renameFile(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw new CheckpointError('CHECKPOINT_UNWRITABLE', `cannot write the checkpoint ${target}: ${fsReason(err)}`);
  }
  // The first rename is durable only once the directory entry is on disk. Later ones replace that
  // entry: should the OS crash before one reaches the disk, the previous checkpoint is still there,
  // which costs a few already-exists answers, never a lost record. So they skip this (3 calls a write).
  if (!syncDirectory) return;
  const dir = await openFd(path.dirname(target), 'r').catch(() => undefined);
  if (dir !== undefined)
    await fsyncFd(dir)
      .catch(() => undefined)
      .finally(() => closeFd(dir));
}

/**
 * Reads and checks a checkpoint; undefined when there is none. A torn or foreign file is an error, never a silent
 * restart.
 */
export async function readCheckpoint(filePath: string): Promise<CheckpointData | undefined> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CheckpointError(
      'CHECKPOINT_UNREADABLE',
      `cannot read the checkpoint ${filePath}: ${(err as NodeJS.ErrnoException).code}`,
    );
  }
  const corrupt = (why: string) =>
    new CheckpointError('CHECKPOINT_CORRUPT', `the checkpoint ${filePath} is damaged (${why})`, {
      hint:
        'start over with `chat-migrate import --fresh` ' +
        '(records already imported are recognised by the service and counted as already present)',
    });
  let data: CheckpointData;
  try {
    data = JSON.parse(text) as CheckpointData;
  } catch {
    throw corrupt('not valid JSON: it may have been cut off');
  }
  if (typeof data !== 'object' || data === null || data.tool !== 'chat-migrate')
    throw corrupt('not a chat-migrate checkpoint');
  if (data.version !== CHECKPOINT_VERSION)
    throw corrupt(`version ${String(data.version)}, expected ${CHECKPOINT_VERSION}`);
  if (
    typeof data.files !== 'object' ||
    data.files === null ||
    !Array.isArray(data.phasesDone) ||
    typeof data.target !== 'object'
  ) {
    throw corrupt('missing fields');
  }
  for (const [key, f] of Object.entries(data.files)) {
    if (!Number.isInteger(f.watermark) || f.watermark < 0 || !Array.isArray(f.acked))
      throw corrupt(`bad progress for ${key}`);
  }
  for (const name of ['rejects', 'imported'] as const) {
    const mark = data[name];
    const badMark =
      typeof mark?.path !== 'string' ||
      !Number.isInteger(mark.bytes) ||
      mark.bytes < 0 ||
      typeof mark.run !== 'string' ||
      typeof mark.before !== 'string';
    // Without a whole mark a resume only leaves the file as it is (a mark from an older build).
    if (mark !== undefined && badMark) delete data[name];
  }
  data.totals ??= {};
  return data;
}

/**
 * Whether the checkpoint is an undone migration's ledger with nothing sent since: nothing of it is on
 * the service, so the next import starts over under its own sources and id rule.
 */
export const startsOver = (data: CheckpointData): boolean =>
  data.undone !== undefined && Object.keys(data.files).length === 0;

/** `http://host (app a1)`: the target a checkpoint belongs to, as a person sets it. */
const targetWords = (target: CheckpointData['target']): string =>
  `${target.baseUrl}${target.appId ? ` (appId ${target.appId})` : ''}`;

/**
 * Throws unless the checkpoint is this migration's. `canStartOver`: the command may begin a migration
 * (import, replay, sync); the others (verify, undo) are only told the checkpoint's own target.
 */
export function assertSameMigration(
  data: CheckpointData,
  identity: CheckpointIdentity,
  filePath: string,
  canStartOver = true,
): void {
  if (data.target.baseUrl !== identity.target.baseUrl || (data.target.appId ?? '') !== (identity.target.appId ?? '')) {
    const own = `its target is ${targetWords(data.target)}: set baseUrl and appId to it to go on with that migration`;
    throw new CheckpointError(
      'CHECKPOINT_OTHER_TARGET',
      `the checkpoint ${filePath} belongs to a migration into ${data.target.baseUrl}, not ${identity.target.baseUrl}`,
      {
        hint: canStartOver
          ? `${own}; to start a new one into ${targetWords(identity.target)}, give --checkpoint another file`
          : `${own}, or give --checkpoint the file of the migration into ${targetWords(identity.target)}`,
      },
    );
  }
  if (startsOver(data)) return;
  if (data.sourcesHash !== identity.sourcesHash) {
    throw new CheckpointError(
      'CHECKPOINT_OTHER_SOURCES',
      `the checkpoint ${filePath} was made for another set of sources`,
      {
        hint:
          'to send records you fixed, edit them in the rejects file (or in the export) and run ' +
          '`chat-migrate replay`; to start a new migration, `chat-migrate import --fresh`, or give --checkpoint ' +
          'another file',
      },
    );
  }
  const earlier = data.idRule ?? EARLIER_ID_RULE;
  if (identity.idRule !== undefined && identity.idRule !== earlier) {
    throw new CheckpointError(
      'CHECKPOINT_OTHER_ID_RULE',
      `the checkpoint ${filePath} was made with idRule ${earlier}, not ${identity.idRule}: ` +
        'the records would get other ids and be imported a second time',
      {
        hint:
          `set idRule to ${earlier} (--id-rule ${earlier}) to go on with this migration; to move to ` +
          `${identity.idRule} ids, run ` +
          '`chat-migrate undo --yes` first: the import after it starts over under the idRule set (docs/ids.md)',
      },
    );
  }
}
