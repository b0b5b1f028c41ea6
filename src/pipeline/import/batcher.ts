import pLimit from 'p-limit';
import type { FileProgress } from '../../checkpoint/file-progress.js';
import type { RejectEntry } from '../../checkpoint/rejects-file.js';
import type { EntityDef } from '../../entities/index.js';
import type { MappedRecord } from '../../entities/types.js';
import type { RejectedSlot } from './open-rejects.js';
import type { BatchOutcome, BatchSender } from './send-batch.js';

/**
 * Rejects a range may hold back before it is sent short: its lines wait in memory for its
 * acknowledgement, and a file of nothing but bad records must not gather them all.
 */
export const MAX_HELD_REJECTS = 1000;

/** What reading a range found besides the records it sends: written and counted when it is acknowledged. */
export interface HeldOutcomes {
  rejects: HeldReject[];
  /** Skipped records by reason. */
  skipped: Record<string, number>;
  /** Members or messages held back by a parent not in (parent-holds.ts). */
  blocked: number;
}

/** A reject waiting for its range, and the slot the checkpoint keeps open for it. */
export interface HeldReject {
  entry: RejectEntry;
  slot: RejectedSlot;
}

/** A run of ordinals of one source file: every slot in [start, end) is acknowledged with the batch that covers it. */
export interface BatchRange {
  progress: FileProgress;
  start: number;
  end: number;
  /** The file's last range: once it is acknowledged, the file was read to the end. */
  last?: boolean;
}

/**
 * An answered batch: the sender's outcome (none for a batch of no records) and what was held for its
 * ranges, one in each file it took records (or held slots) from.
 */
export interface AnsweredBatch {
  outcome: BatchOutcome | undefined;
  held: HeldOutcomes;
  ranges: BatchRange[];
  /** The records sent. */
  records: MappedRecord[];
}

export interface BatcherOptions {
  entity: EntityDef;
  sender: BatchSender;
  batchSize: number;
  concurrency: number;
  /** Soft stop: a batch still queued when it fires is not sent (nor acknowledged): the next run reads it again. */
  stop: AbortSignal;
  /**
   * Called in the tick a batch is answered, so its rejects and its acknowledgement are written together.
   * A promise returned holds the batch's place among the unsettled until it settles (its checkpoint write).
   */
  onAnswered(answer: AnsweredBatch): void | Promise<void>;
  /**
   * Called once, on the first failure: the run will stop, so batches still retrying should give up
   * now rather than wait out their backoff (a split batch's other half kept a failed run alive ~70 s).
   */
  onFailure?(): void;
}

const NOT_SENT = Symbol('not sent');

/**
 * The batch stage of one phase: gathers records into requests of `batchSize` across file boundaries
 * (an export of many small files still sends full requests), sends them with at most `concurrency`
 * in flight, and holds back reading while twice that many are unsettled (the back-pressure on the
 * reader). A batch acknowledges a range in each file it took from, so the checkpoint stays per file.
 * The first failure is kept; the phase stops taking records then.
 */
export class Batcher {
  private batch: MappedRecord[] = [];
  private held: HeldOutcomes = { rejects: [], skipped: {}, blocked: 0 };
  /** Ranges of files read to their end whose slots wait in the batch being gathered. */
  private closed: BatchRange[] = [];
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly inFlight = new Set<Promise<void>>();
  /** Batches sent and not yet answered: where a suspect duplicate's first record may still be. */
  private readonly unanswered = new Set<MappedRecord[]>();
  failure: unknown;

  constructor(private readonly options: BatcherOptions) {
    this.limit = pLimit(options.concurrency);
  }

  /** The phase should stop taking records: a batch failed or the run was stopped. */
  get stopped(): boolean {
    return this.failure !== undefined || this.options.stop.aborted;
  }

  fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.options.onFailure?.();
  }

  hold(entry: RejectEntry, slot: RejectedSlot): void {
    this.held.rejects.push({ entry, slot });
  }

  holdSkip(reason: string): void {
    this.held.skipped[reason] = (this.held.skipped[reason] ?? 0) + 1;
  }

  holdBlocked(): void {
    this.held.blocked++;
  }

  /**
   * Takes a record (or only the slot of one that was held back) whose range ends at `end` in the
   * file of `progress`; sends the batch once it is full, or once the held rejects reach their limit.
   */
  async offer(
    record: MappedRecord | undefined,
    progress: FileProgress,
    rangeStart: number,
    end: number,
  ): Promise<boolean> {
    if (record !== undefined) this.batch.push(record);
    if (this.batch.length < this.options.batchSize && this.held.rejects.length < MAX_HELD_REJECTS) return false;
    await this.dispatch({ progress, start: rangeStart, end });
    return true;
  }

  /**
   * A record sent again outside its file's reading (replay): its slot, acknowledged long since, rides
   * with the batch so the answer can close or reopen it.
   */
  async offerSlot(record: MappedRecord, progress: FileProgress, ordinal: number): Promise<void> {
    this.closed.push({ progress, start: ordinal, end: ordinal + 1 });
    await this.offer(record, progress, ordinal, ordinal + 1);
  }

  /** A file was read to its end: its last range rides with the batch being gathered. */
  closeFile(progress: FileProgress, start: number, end: number): void {
    this.closed.push({ progress, start, end, last: true });
  }

  /** Sends what is gathered at the end of the phase. */
  async flush(): Promise<void> {
    const heldAny = this.held.rejects.length > 0 || Object.keys(this.held.skipped).length > 0 || this.held.blocked > 0;
    if (this.batch.length > 0 || heldAny || this.closed.length > 0) {
      await this.dispatch();
    }
  }

  /**
   * Sends what is gathered: the ranges of files closed since the last batch, and `current`, the range
   * of the file being read. A batch of no records only acknowledges its ranges.
   */
  private async dispatch(current?: BatchRange): Promise<void> {
    const records = this.batch;
    const held = this.held;
    const ranges = current === undefined ? this.closed : [...this.closed, current];
    this.batch = [];
    this.held = { rejects: [], skipped: {}, blocked: 0 };
    this.closed = [];
    const { entity, sender, stop } = this.options;
    // Only the request holds a slot of the pool: the checkpoint write (an fsync) must not idle a connection.
    const send = async (): Promise<BatchOutcome | typeof NOT_SENT> =>
      stop.aborted ? NOT_SENT : sender.send(entity, records);
    const sent = records.length > 0 ? this.limit(send) : Promise.resolve(undefined);
    this.unanswered.add(records);
    void sent.finally(() => this.unanswered.delete(records)).catch(() => undefined);
    const task = sent
      .then((outcome) =>
        outcome === NOT_SENT ? undefined : this.options.onAnswered({ outcome, held, ranges, records }),
      )
      .catch((err: unknown) => this.fail(err));
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
    while (this.inFlight.size >= this.options.concurrency * 2 && this.failure === undefined) {
      await Promise.race(this.inFlight);
    }
  }

  /** Waits for every batch in flight to be answered (or to fail). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * The first record with `id` (any case) still in the batch being gathered or in one not yet
   * answered: a message the id filter may have seen before is judged here while the two could
   * still be stored in either order.
   */
  earlierWithId(id: string): MappedRecord | undefined {
    const lower = id.toLowerCase();
    for (const batch of [this.batch, ...this.unanswered]) {
      for (const record of batch) if (record.id.toLowerCase() === lower) return record;
    }
    return undefined;
  }
}
