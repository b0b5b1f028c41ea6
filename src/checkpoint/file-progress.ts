/**
 * How far one source file is acknowledged. Batches cover contiguous ordinal ranges that tile the file,
 * but finish out of order, so progress is a contiguous watermark (every ordinal below it is done)
 * plus the acknowledged ranges beyond it. A record is skipped on resume only when it is covered here:
 * nothing that was not acknowledged is ever skipped.
 */
export interface FileProgressData {
  /** The file as displayed (set in the checkpoint; absent in a progress made for a test). */
  file?: string;
  /** Every record slot with ordinal < watermark was acknowledged (imported, already there, rejected or skipped). */
  watermark: number;
  /** Acknowledged half-open ranges [start, end) above the watermark, sorted, not touching. */
  acked: Array<[number, number]>;
  /** The whole file was read and acknowledged. */
  complete?: boolean;
  /** Size and head hash of the file when it was last read: tells a rewritten file from a grown one. */
  fingerprint?: { size: number; head: string };
  /**
   * Where the last reading to the file's end stopped (its size then, the line after, a hash of the
   * bytes before): a later run skips a file that ends there still, and reads one that grew from there.
   */
  end?: { byte: number; line: number; tail: string };
  /**
   * The newest `sentAt` (UNIX seconds) of the messages the reading that set `end` met, the slots read
   * on from an earlier end included; absent when one had none: a verify with a window leaves the
   * file unread while it ends there still and this is older than the window.
   */
  newestSentAt?: number;
  /** When the reading that set `end` ended (ms since the epoch): a sync round tells its own from earlier ones. */
  readAt?: number;
  /**
   * Slots acknowledged as rejected that are not in yet, by ordinal: the code they were refused with
   * and a hash of what the slot held, so a later run can tell an edited record from the same one.
   */
  open?: Record<string, OpenReject>;
  /**
   * Half-open ranges of ordinals acknowledged as skipped beyond the retention window, sorted: a later
   * run whose window allows them sends them (pipeline/retention.ts). Exports are mostly in time
   * order, so the ranges are few.
   */
  old?: Array<[number, number]>;
}

/** A rejected slot still open: acknowledged (the run went on), but not "done". */
export interface OpenReject {
  code: string;
  hash: string;
}

export class FileProgress {
  constructor(readonly data: FileProgressData = { watermark: 0, acked: [] }) {}

  isAcked(ordinal: number): boolean {
    if (ordinal < this.data.watermark) return true;
    for (const [start, end] of this.data.acked) {
      if (ordinal < start) return false;
      if (ordinal < end) return true;
    }
    return false;
  }

  /** Marks [start, end) acknowledged, merging ranges and raising the watermark where they join it. */
  ack(start: number, end: number): void {
    if (end <= start) return;
    const ranges = this.data.acked;
    ranges.push([start, end]);
    ranges.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const r of ranges) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    while (merged.length > 0 && merged[0][0] <= this.data.watermark) {
      this.data.watermark = Math.max(this.data.watermark, merged[0][1]);
      merged.shift();
    }
    this.data.acked = merged;
  }

  openAt(ordinal: number): OpenReject | undefined {
    return this.data.open?.[ordinal];
  }

  setOpen(ordinal: number, reject: OpenReject): void {
    (this.data.open ??= {})[ordinal] = reject;
  }

  /** The slot's record got in (or is no longer a record to send): it is done. False if it was not open. */
  resolve(ordinal: number): boolean {
    if (this.data.open === undefined || !(ordinal in this.data.open)) return false;
    delete this.data.open[ordinal];
    if (Object.keys(this.data.open).length === 0) delete this.data.open;
    return true;
  }

  /** Whether the slot was acknowledged as skipped beyond the retention window. */
  isOld(ordinal: number): boolean {
    return this.data.old?.some(([start, end]) => ordinal >= start && ordinal < end) === true;
  }

  /** Marks the slot skipped beyond the retention window (before it is acknowledged: harmless till then). */
  markOld(ordinal: number): void {
    const ranges = (this.data.old ??= []);
    const last = ranges[ranges.length - 1];
    if (last && last[1] === ordinal) last[1]++;
    else if (!this.isOld(ordinal)) {
      ranges.push([ordinal, ordinal + 1]);
      if (last && last[0] > ordinal) ranges.sort((a, b) => a[0] - b[0]);
    }
  }

  /** The slot is no longer skipped as too old (its record was sent or rejected): true if it was. */
  unmarkOld(ordinal: number): boolean {
    const ranges = this.data.old;
    const at = ranges?.findIndex(([start, end]) => ordinal >= start && ordinal < end) ?? -1;
    if (ranges === undefined || at < 0) return false;
    const [start, end] = ranges[at];
    const parts: Array<[number, number]> = [];
    if (start < ordinal) parts.push([start, ordinal]);
    if (ordinal + 1 < end) parts.push([ordinal + 1, end]);
    ranges.splice(at, 1, ...parts);
    if (ranges.length === 0) delete this.data.old;
    return true;
  }

  /** Rejected slots not in yet, for status and the summary. */
  openCount(): number {
    return this.data.open === undefined ? 0 : Object.keys(this.data.open).length;
  }

  /** Records known acknowledged, for status. */
  ackedCount(): number {
    return this.data.acked.reduce((n, [s, e]) => n + (e - s), this.data.watermark);
  }
}
