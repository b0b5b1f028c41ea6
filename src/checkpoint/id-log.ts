import type { EntityName } from '../entities/types.js';
import { CompanionLog, type CompanionKind } from './companion-log.js';
import type { CheckpointCompanion, CompanionMark } from './store.js';

/**
 * One line of the id log: a record the service holds after the import. `created`: the service
 * answered success (this migration made it). `existing`: it answered ERR_*_ALREADY_EXISTS (it was
 * there already, or an earlier try's answer was lost: `resent`, which undo deletes).
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
  /** Not from the export: sent by replay as edited in the rejects file, or by verify --repair. */
  via?: 'replay' | 'repair';
}

const ID_LOG: CompanionKind = { noun: 'id log', unwritableCode: 'ID_LOG_UNWRITABLE', pastMark: 'keep' };

const keyOf = (entity: string, id: string): string => `${entity}\t${id.toLowerCase()}`;

/**
 * The id log (`<checkpoint>.imported.ndjson`): appended as ranges are acknowledged, marked by each
 * checkpoint like the rejects file. On resume the interrupted run's lines past the mark stay (they
 * are what the service answered, which it will not say again: a re-send now answers already-exists);
 * those records are sent again, and their already-exists answers add no second line.
 *
 * Readers: an id may still have two lines (a line lost with a killed process comes back `existing`;
 * a record deleted and sent again is `created` twice): the last line about an id is the current one,
 * and any `created` line says this migration made it.
 */
export class IdLog {
  private constructor(
    private readonly log: CompanionLog<IdLogLine>,
    /**
     * Records the interrupted runs logged past the mark and not yet met again this run (bounded: the
     * answers of one checkpoint interval per interrupted run).
     */
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
    // Until this run meets those records again, its checkpoints keep the mark resumed from: killed
    // before that, the next run still finds their lines past the mark.
    if (logged.size > 0 && resumeMark) log.holdMark(resumeMark);
    return new IdLog(log, logged);
  }

  get path(): string {
    return this.log.path;
  }

  /** Write-ahead batches this run recorded: their numbers, which `write` names once answered. */
  private sent = 0;

  /**
   * The write-ahead line of a batch about to be sent, on disk (in the system's hands: a killed
   * process loses nothing written) before the request goes: an already-exists answer later, for a
   * record of a batch whose answer never came, was that batch's own record (undo deletes it). Its number.
   */
  async sending(entity: EntityName, ids: readonly string[]): Promise<number> {
    const batch = ++this.sent;
    this.log.writeLines(
      `{"run":"${this.log.run}","sending":"${entity}","batch":${batch},"ids":${JSON.stringify(ids)}}\n`,
    );
    await this.log.flush();
    return batch;
  }

  get companion(): CheckpointCompanion {
    return this.log;
  }

  /**
   * The lines of one acknowledged batch, written as one piece of text; with `answered`, the number
   * `sending` gave it, so a reader tells batches answered from batches a crash or a failure cut off.
   */
  write(lines: readonly IdLogLine[], answered?: number): void {
    let text = '';
    const head = `{"run":"${this.log.run}","entity":"`;
    for (const line of lines) {
      if (this.loggedBefore.size > 0 && this.loggedBefore.delete(keyOf(line.entity, line.id))) {
        if (this.loggedBefore.size === 0) this.log.releaseMark();
        // Logged by an interrupted run: an already-exists answer now is that record coming back.
        if (line.state === 'existing') continue;
      }
      // By hand, in IdLogLine's order: JSON.stringify of a fresh object per record cost a tenth of the import's CPU.
      text += `${head}${line.entity}","id":${JSON.stringify(line.id)}`;
      if (line.serviceId !== undefined) text += `,"serviceId":${JSON.stringify(line.serviceId)}`;
      if (line.guid !== undefined) text += `,"guid":${JSON.stringify(line.guid)},"uid":${JSON.stringify(line.uid)}`;
      text += `,"state":"${line.state}"${line.resent ? ',"resent":true' : ''}`;
      text += `${line.via ? `,"via":"${line.via}"` : ''}}\n`;
    }
    if (answered !== undefined) text += `{"run":"${this.log.run}","answered":${answered}}\n`;
    if (text !== '') this.log.writeLines(text);
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
