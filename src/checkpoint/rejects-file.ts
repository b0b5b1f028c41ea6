import { rename, stat } from 'node:fs/promises';
import type { EntityName, JsonObject } from '../entities/types.js';
import { CheckpointError } from '../errors.js';
import { CompanionLog, type CompanionKind } from './companion-log.js';
import { fsReason } from './state-files.js';
import type { CompanionMark } from './store.js';

/** One line of the rejects file: enough to find the record, fix it and replay it. */
export interface RejectEntry {
  entity: EntityName;
  file: string;
  line: number;
  /** The record's slot in its file (from 0): what `replay` matches the line to the checkpoint by. */
  ordinal?: number;
  id?: string;
  /** The service's error code, or the validation rule / input rule. */
  code: string;
  field?: string;
  message: string;
  /** The record as the source held it (absent when the input could not be parsed into one). */
  record?: JsonObject;
}

const REJECTS: CompanionKind = { noun: 'rejects file', unwritableCode: 'REJECTS_UNWRITABLE', pastMark: 'drop' };

/**
 * The rejects file: refused records, appended once each across crashes (companion-log.ts). After a
 * crash the interrupted run's lines past the checkpoint's mark are taken out: their records are read
 * and judged again.
 */
export type RejectsWriter = CompanionLog<RejectEntry>;

export const RejectsWriter = {
  open: (path: string, resumeMark?: CompanionMark): Promise<RejectsWriter> =>
    CompanionLog.open<RejectEntry>(REJECTS, path, resumeMark),
};

/**
 * `--fresh` starts the rejects file anew: the old one (a regular file with lines in it) is renamed
 * aside to `<path>.<time>` rather than appended to, where every record would be listed twice.
 * Returns the new name of the old file, if there was one.
 */
export async function rotateRejects(path: string, now = new Date()): Promise<string | undefined> {
  const existing = await stat(path).catch(() => undefined);
  if (!existing?.isFile() || existing.size === 0) return undefined;
  const aside = `${path}.${now.toISOString().replace(/[:.]/g, '-')}`;
  try {
    await rename(path, aside);
  } catch (err) {
    throw new CheckpointError('REJECTS_UNWRITABLE', `cannot set the rejects file ${path} aside: ${fsReason(err)}`);
  }
  return aside;
}
