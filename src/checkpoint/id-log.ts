import type { EntityName } from '../entities/types.js';
import { CompanionLog, type CompanionKind } from './companion-log.js';
import type { CheckpointCompanion, CompanionMark } from './store.js';

/**
 * One line of the id log: a record the service holds after the import. `created`: the service
 * answered success (this migration made it). `existing`: it answered ERR_*_ALREADY_EXISTS (it was
 * there already, or an earlier try's answer was lost: `resent`); `undo` never deletes those.
 */
export interface IdLogLine {
  entity: EntityName;
  /** The id sent: uid, guid, `<guid>_member_<uid>` or muid (the service stores it lower-cased). */
  id: string;
  /** Members: the two ids apart, so a delete needs no parsing of `id`. */
  guid?: string;
  uid?: string;
  /** Messages the service created: its own id, which reads and deletes need. */
  serviceId?: string;
  state: 'created' | 'existing';
  resent?: true;
}

const ID_LOG: CompanionKind = { noun: 'id log', unwritableCode: 'ID_LOG_UNWRITABLE', pastMark: 'keep' };

const keyOf = (entity: string, id: string): string => `${entity}\t${id.toLowerCase()}`;

/**
 * The id log (`<checkpoint>.imported.ndjson`): appended as ranges are acknowledged, marked by each
 * checkpoint like the rejects file. On resume the interrupted run's lines past the mark stay (they
 * are what the service answered, which it will not say again: a re-send now answers already-exists);
 * those records are sent again, and their already-exists answers add no second line.
 */
export class IdLog {
  private constructor(
    private readonly log: CompanionLog<IdLogLine>,
    /** Records the interrupted run logged past its mark (bounded: one checkpoint interval of answers). */
    private readonly loggedBefore: Set<string>,
  ) {}

  static async open(path: string, resumeMark?: CompanionMark): Promise<IdLog> {
    const log = await CompanionLog.open<IdLogLine>(ID_LOG, path, resumeMark);
    const logged = new Set<string>();
    for (const text of log.resumed.kept ?? []) {
      try {
        const line = JSON.parse(text) as IdLogLine;
        if (typeof line.entity === 'string' && typeof line.id === 'string') logged.add(keyOf(line.entity, line.id));
      } catch {
        // A line that is no JSON is nobody's record.
      }
    }
    return new IdLog(log, logged);
  }

  get path(): string {
    return this.log.path;
  }

  get companion(): CheckpointCompanion {
    return this.log;
  }

  /** Lines of the interrupted run kept past its mark. */
  get keptFromResume(): number {
    return this.loggedBefore.size;
  }

  write(line: IdLogLine): void {
    if (this.loggedBefore.size > 0 && this.loggedBefore.has(keyOf(line.entity, line.id))) {
      // Logged by the interrupted run: an already-exists answer now is its own record coming back.
      if (line.state === 'existing') return;
    }
    this.log.write(line);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
