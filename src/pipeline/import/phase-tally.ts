import type { IdLog, IdLogLine } from '../../checkpoint/id-log.js';
import type { RejectEntry, RejectsWriter } from '../../checkpoint/rejects-file.js';
import type { EntityTotals } from '../../checkpoint/store.js';
import { BEYOND_RETENTION, type MappedRecord } from '../../entities/types.js';
import type { FileProgress } from '../../checkpoint/file-progress.js';
import type { EntityCounts } from '../events.js';
import type { AnsweredBatch, HeldReject } from './batcher.js';
import type { AcceptedRecord } from './send-batch.js';
import { slotHash } from './open-rejects.js';

/**
 * Counts what a phase's answered batches did, in this run's counts and the checkpoint's totals, and
 * keeps the checkpoint's open rejects: a reject opens its slot (one rejects line, unless an earlier
 * run already wrote it for the same reason), a record that gets in closes it.
 */
export class PhaseTally {
  constructor(
    private readonly counts: EntityCounts,
    private readonly totals: EntityTotals,
    private readonly rejects: RejectsWriter,
    private readonly idLog?: IdLog,
  ) {}

  /** An acknowledged slot whose reject still stands: counted, nothing written. */
  stillRejected(): void {
    this.counts.rejected++;
    this.counts.rejectedEarlier++;
  }

  /** A member or message acknowledged before and still held back by its parent. */
  stillBlocked(): void {
    this.counts.blocked++;
  }

  /** A skip this run, of a slot that was done earlier as a reject (its record is now skipped instead). */
  skip(reason: string): void {
    this.addSkips({ [reason]: 1 });
  }

  /** Everything a batch's answer settles, in the tick its ranges are acknowledged. */
  answered({ outcome, held, ranges, records }: AnsweredBatch): void {
    for (const reject of held.rejects) {
      this.unskipOld(reject.slot.progress, reject.slot.ordinal);
      this.reject(reject);
    }
    this.addSkips(held.skipped);
    this.counts.blocked += held.blocked;
    if (outcome) {
      const progressOf = new Map(ranges.map((r) => [r.progress.data.file, r.progress]));
      const refused = new Set<MappedRecord>();
      for (const r of outcome.rejected) {
        refused.add(r.record);
        const entry = rejectOfRecord(r.record, r.code, r.message);
        const progress = progressOf.get(r.record.file)!;
        this.reject({ entry, slot: { progress, ordinal: r.record.ordinal, hash: hashOfRecord(r.record) } });
      }
      if (outcome.skipped > 0) this.addSkips({ duplicate: outcome.skipped });
      if (this.idLog && (outcome.accepted.length > 0 || outcome.sentAs !== undefined))
        this.idLog.write(outcome.accepted.map(idLogLine), outcome.sentAs);
      for (const record of records) this.unskipOld(progressOf.get(record.file), record.ordinal);
      for (const a of outcome.accepted) {
        if (a.record.replayed) this.totals.replayed = (this.totals.replayed ?? 0) + 1;
        if (a.record.media?.without?.length) this.totals.withoutFiles = (this.totals.withoutFiles ?? 0) + 1;
      }
      this.counts.imported += outcome.imported;
      this.counts.alreadyPresent += outcome.alreadyPresent;
      this.totals.imported += outcome.imported;
      this.totals.alreadyPresent += outcome.alreadyPresent;
      // Records sent again because an earlier run rejected them: the ones not refused now are in.
      if (ranges.some((r) => r.progress.data.open !== undefined)) {
        for (const record of records) {
          if (refused.has(record) || !progressOf.get(record.file)?.resolve(record.ordinal)) continue;
          this.totals.resolved = (this.totals.resolved ?? 0) + 1;
        }
      }
    }
    for (const range of ranges) {
      range.progress.ack(range.start, range.end);
      if (range.last) range.progress.data.complete = true;
    }
  }

  /** A slot an earlier run skipped as too old, sent or rejected now: no longer counted as skipped. */
  private unskipOld(progress: FileProgress | undefined, ordinal: number): void {
    if (progress?.data.old === undefined || !progress.unmarkOld(ordinal)) return;
    this.totals.skipped--;
    const by = this.totals.skippedBy!;
    if (--by[BEYOND_RETENTION] <= 0) delete by[BEYOND_RETENTION];
  }

  private reject({ entry, slot }: HeldReject): void {
    // The same reason for the same content as an earlier run: no second line.
    const open = slot.progress.openAt(slot.ordinal);
    const again = open?.code === entry.code && open.hash === slot.hash;
    if (!again) this.rejects.write(entry);
    slot.progress.setOpen(slot.ordinal, { code: entry.code, hash: slot.hash });
    // A problem of the whole file is no record: counted apart, so read = imported + ... still holds.
    if (slot.ordinal < 0) {
      this.counts.fileProblems++;
      return;
    }
    this.counts.rejected++;
    if (again) this.counts.rejectedEarlier++;
    else this.totals.rejected++;
  }

  private addSkips(byReason: Record<string, number>): void {
    const totalsBy = (this.totals.skippedBy ??= {});
    for (const [reason, n] of Object.entries(byReason)) {
      this.counts.skipped += n;
      this.counts.skippedBy[reason] = (this.counts.skippedBy[reason] ?? 0) + n;
      this.totals.skipped += n;
      totalsBy[reason] = (totalsBy[reason] ?? 0) + n;
    }
  }
}

export function rejectOfRecord(record: MappedRecord, code: string, message: string): RejectEntry {
  const { entity, file, line, ordinal, id, source } = record;
  return { entity, file, line, ordinal, id, code, message, record: source };
}

/** Fields in the order a person reads them: what, which, the service's id, then how it got there. */
export function idLogLine({ record, created, serviceId, resent }: AcceptedRecord): IdLogLine {
  const member = record.entity === 'members';
  return {
    entity: record.entity,
    id: record.id,
    serviceId,
    guid: member ? (record.payload.guid as string) : undefined,
    uid: member ? (record.payload.uid as string) : undefined,
    state: created ? 'created' : 'existing',
    resent: resent && !created ? true : undefined,
    via: record.replayed ? 'replay' : undefined,
  };
}

/** The hash `slotHash` gives the record's source item. */
const hashOfRecord = (record: MappedRecord): string =>
  slotHash({ kind: 'record', value: record.source, file: record.file, line: record.line, ordinal: record.ordinal });
