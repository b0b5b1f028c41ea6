import { ENTITIES } from '../../entities/index.js';
import type { EntityName, MappedRecord } from '../../entities/types.js';
import type { AcceptedRecord, BatchSender } from '../import/send-batch.js';
import type { RepairOutcome } from '../verify/verify-result.js';

/**
 * Sends the records verify found missing, through the import's own BatchSender (its limiter, retry
 * policy, splitting and per-record answers). Entities come in import order: a phase's batches are all
 * answered before the next entity's first is sent, as the import's phases are.
 */
export class RepairSender {
  private entity: EntityName | undefined;
  private batch: MappedRecord[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;

  constructor(
    private readonly sender: BatchSender,
    private readonly batchSize: number,
    private readonly concurrency: number,
    readonly outcome: RepairOutcome,
    /** Each batch's records the service now holds, for the id log (a message with the service's id). */
    private readonly onAccepted: (accepted: readonly AcceptedRecord[]) => void = () => {},
  ) {}

  async offer(record: MappedRecord): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.entity !== record.entity) {
      await this.finish();
      this.entity = record.entity;
    }
    this.outcome.sent[record.entity] = (this.outcome.sent[record.entity] ?? 0) + 1;
    this.batch.push(record);
    if (this.batch.length >= this.batchSize) await this.dispatch();
  }

  /** Sends what is gathered and waits for every answer. */
  async finish(): Promise<void> {
    if (this.batch.length > 0) await this.dispatch();
    await Promise.all(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
  }

  private async dispatch(): Promise<void> {
    const records = this.batch;
    this.batch = [];
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    const sending = this.sender.send(ENTITIES[records[0].entity], records).then(
      (answer) => {
        this.outcome.imported += answer.imported;
        this.outcome.alreadyPresent += answer.alreadyPresent + answer.skipped;
        if (answer.accepted.length > 0) this.onAccepted(answer.accepted);
        for (const { record, code, message } of answer.rejected) {
          this.outcome.rejected.push({ id: record.id, file: record.file, line: record.line, code, message });
        }
      },
      (err: unknown) => {
        this.failure ??= err;
      },
    );
    const tracked = sending.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }
}
