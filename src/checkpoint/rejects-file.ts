import type { EntityName, JsonObject } from '../entities/types.js';
import { CompanionLog, type CompanionKind } from './companion-log.js';
import type { CompanionMark } from './store.js';

/** One line of the rejects file: enough to find the record, fix it and replay it. */
export interface RejectEntry {
  entity: EntityName;
  file: string;
  line: number;
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
