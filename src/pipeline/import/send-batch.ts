import type { EntityDef } from '../../entities/index.js';
import type { EntityName, MappedRecord } from '../../entities/types.js';
import { RemoteError } from '../../errors.js';
import type { ImportClient, ImportResponse } from '../../http/import-client.js';
import { parseRecordResults, parseRequestError, type RecordResult } from '../../http/parse-results.js';
import type { Clock } from '../../clock.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import { BatchBodies } from './batch-body.js';
import type { RetryPolicy } from '../../http/retry-policy.js';
import { type AnswerKind, retryingRequest, type TryLoop, type Verdict } from '../../http/retrying-request.js';
import type { RunEvents } from '../events.js';

/** What became of each record of a batch. */
export interface BatchOutcome {
  imported: number;
  alreadyPresent: number;
  rejected: Array<{ record: MappedRecord; code: string; message: string }>;
  /** Exact copies of an earlier record of the export, found by the service's already-exists answer. */
  skipped: number;
  /** Every record the service holds now (imported or already present), for the id log. */
  accepted: AcceptedRecord[];
  /** The number of the batch's write-ahead line (`writeAhead`), which its answer's lines name. */
  sentAs?: number;
}

/** A record the service answered success or already-exists for. */
export interface AcceptedRecord {
  record: MappedRecord;
  /** False: the service answered that it existed already (ERR_*_ALREADY_EXISTS). */
  created: boolean;
  /** The service's own id, when the answer gave one (messages). */
  serviceId?: string;
  /** The answer came to a request sent again: an earlier try may have stored the record unanswered. */
  resent: boolean;
}

/** What the sender tells as it goes: each request as it starts, each pause before a retry. */
export interface SenderEvents {
  /**
   * Counted here, not on the outcome: a batch that fails in the end throws, and its tries must still
   * reach the summary (`requests 0, retries 0` beside `gave up after 8 retries` was the bug).
   */
  requestStarted(entity: EntityName, isRetry: boolean): void;
  retrying: RunEvents['retrying'];
  /** Each HTTP answer, with the time from sending to its whole body: the run log's 429s and latency. */
  answered?(entity: EntityName, status: number, latencyMs: number): void;
}

export interface BatchSenderOptions {
  client: ImportClient;
  limiter: RateLimiter;
  policy: RetryPolicy;
  clock: Clock;
  /** Aborts requests under way: only the second Ctrl+C or the end of the grace period fires it. */
  hardStop: AbortSignal;
  /**
   * Fired when the run failed elsewhere: no further try and no wait (a split batch's other half kept a
   * failed run alive ~70 s), while a request already on the wire still finishes and is counted.
   */
  abandon?: AbortSignal;
  random?: () => number;
  /**
   * Asked when the service says a record already exists: undefined counts it as imported (a re-send
   * after a crash); a problem rejects it instead (the export holds its id twice); `duplicate` skips it
   * (the export holds the same record twice).
   */
  judgeAlreadyExists?: (record: MappedRecord) => { code: string; message: string } | 'duplicate' | undefined;
  /**
   * Whether a 5xx answer names a cause that belongs to one record and fails it every time (a message
   * beyond the app's retention): the batch is split at once, and the record, alone, rejected on its
   * first such answer, whether or not other requests succeed.
   */
  namesOwnCause?: (entity: EntityName, error: { code: string; message: string } | undefined) => boolean;
  /** The reject of a record that fails alone with a 5xx, when it is not the plain `HTTP_<status>` one. */
  rejectAlone?: (
    record: MappedRecord,
    status: number,
    error: { code: string; message: string } | undefined,
  ) => { code: string; message: string } | undefined;
  events?: SenderEvents;
  /** Records, before the batch's first try, what is about to be sent (IdLog.sending); its number. */
  writeAhead?: (entity: EntityName, ids: readonly string[]) => Promise<number>;
}

/** Records isolated as poison in a row, with no success between, before the run is judged to be failing. */
const MAX_POISON_IN_A_ROW = 10;

/**
 * Sends one batch and retries what can be retried: 429 (the limiter pauses everyone), 5xx, timeouts
 * and dropped connections, with exponential backoff and full jitter. Re-sending is safe because a
 * record the service already has comes back as already-exists. A batch that keeps failing with 500 is
 * split in halves until the record that fails it stands alone; that one is rejected.
 */
export class BatchSender {
  private poisonInARow = 0;
  /** 200 answers so far: a record is judged poison only while other requests succeed. */
  private okCount = 0;
  private readonly bodies = new BatchBodies();

  constructor(private readonly options: BatchSenderOptions) {}

  async send(entity: EntityDef, records: MappedRecord[]): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { imported: 0, alreadyPresent: 0, rejected: [], skipped: 0, accepted: [] };
    const { writeAhead } = this.options;
    if (writeAhead && records.length > 0)
      outcome.sentAs = await writeAhead(
        entity.name,
        records.map((r) => r.id),
      );
    await this.sendGroup(entity, records, outcome);
    return outcome;
  }

  /**
   * `okBaseline`, for halves of a split batch: the count of 200 answers when the whole batch first
   * failed. A half's success (the sibling of a poison record) then counts as evidence for the other.
   * The tries are the one loop's (http/retrying-request.ts); what an answer does to the records is here.
   */
  private async sendGroup(
    entity: EntityDef,
    records: MappedRecord[],
    outcome: BatchOutcome,
    okBaseline = -1,
  ): Promise<void> {
    const { client } = this.options;
    let pending = records;
    // Serialised once per set of records: a retry of the same records re-sends the same bytes.
    let body: Buffer;
    try {
      body = this.bodies.serialise(entity, pending);
    } catch {
      pending = this.dropUnserialisable(records, outcome);
      if (pending.length === 0) return;
      body = this.bodies.serialise(entity, pending);
    }
    let sends = 0;
    let serverErrors = 0;
    let okCountAtFirstError = okBaseline;
    let halves: { parts: MappedRecord[][]; baseline: number } | undefined;
    const judge = (answer: ImportResponse, kind: AnswerKind): Verdict<void> => {
      const resent = okBaseline >= 0 || sends > 1;
      const { status } = answer;
      if (status === 200) {
        this.okCount++;
        const ids = pending.map((r) => r.id);
        pending = this.settle(entity, pending, parseRecordResults(answer.text, ids, entity.idField), outcome, resent);
        if (pending.length === 0) return { done: undefined };
        body = this.bodies.serialise(entity, pending);
        // Records the answer did not mention: send them again, already-exists makes it safe.
        const some = `${pending.length} ${pending.length === 1 ? 'record' : 'records'}`;
        return { retry: `the service answered without a result for ${some}`, reason: `no result for ${some}` };
      }
      if (kind === 'auth' || kind === 'rate-limited') return undefined;
      const error = kind === 'server-error' ? parseRequestError(answer.text) : undefined;
      if (error !== undefined && this.options.namesOwnCause?.(entity.name, error)) {
        // The answer names a record's own fault: no retry of the same body can pass, so split now.
        if (okCountAtFirstError < 0) okCountAtFirstError = this.okCount;
        if (pending.length > 1) {
          const half = Math.ceil(pending.length / 2);
          halves = { parts: [pending.slice(0, half), pending.slice(half)], baseline: okCountAtFirstError };
        } else this.rejectOwnFault(pending[0], status, error, outcome);
        return { done: undefined };
      }
      // The service fails a whole request for one bad record: split it after a few server failures in a row.
      const { splitAfter } = this.options.policy;
      const retryable = kind === 'server-error';
      if (retryable) {
        serverErrors++;
        if (okCountAtFirstError < 0) okCountAtFirstError = this.okCount;
      }
      if (!retryable || serverErrors >= splitAfter) {
        if (pending.length > 1) {
          const half = Math.ceil(pending.length / 2);
          const baseline = okCountAtFirstError < 0 ? this.okCount : okCountAtFirstError;
          halves = { parts: [pending.slice(0, half), pending.slice(half)], baseline };
          return { done: undefined };
        }
        // Alone and still failing while other requests succeed: this record is what breaks the request.
        // When nothing succeeds, the service is down, not the record: keep retrying until the budget ends.
        const othersSucceed = this.okCount > okCountAtFirstError;
        if (!retryable || (serverErrors > splitAfter && othersSucceed)) {
          this.rejectPoison(pending[0], status, parseRequestError(answer.text), outcome);
          return { done: undefined };
        }
      }
      return undefined;
    };
    await retryingRequest(this.loopOf(entity), {
      subject: entity.name,
      route: client.route,
      timeoutMs: client.timeoutMs,
      resent: okBaseline >= 0,
      send: (signal) => {
        sends++;
        return client.post(entity.endpoint, body, signal);
      },
      judge,
    });
    if (halves) {
      // Both halves at once: the healthy one's success is what lets the other judge its lone record.
      const { parts, baseline } = halves;
      await Promise.all(parts.map((part) => this.sendGroup(entity, part, outcome, baseline)));
    }
  }

  /** The one try loop, with this sender's limiter, policy and stops, and its events told per entity. */
  private loopOf(entity: EntityDef): TryLoop {
    const { client, limiter, policy, clock, hardStop, abandon, random, events } = this.options;
    return {
      keyCheck: client.keyCheck,
      limiter,
      policy,
      clock,
      stop: hardStop,
      abandon,
      random,
      saved: 'the checkpoint is saved',
      events: events && {
        requestStarted: (isRetry) => events.requestStarted(entity.name, isRetry),
        answered: (status, latencyMs) => events.answered?.(entity.name, status, latencyMs),
        retrying: (notice) => events.retrying(entity.name, notice),
      },
    };
  }

  /**
   * Records nested too deeply for JSON.stringify (validation catches the fields it walks; this catches
   * the rest) are rejected rather than failing the whole batch. Only called once a batch failed to serialise.
   */
  private dropUnserialisable(records: MappedRecord[], outcome: BatchOutcome): MappedRecord[] {
    return records.filter((record) => {
      try {
        JSON.stringify(record.payload);
        return true;
      } catch {
        outcome.rejected.push({
          record,
          code: 'value.too-deep',
          message: 'a value is nested too deeply to serialise as JSON',
        });
        return false;
      }
    });
  }

  /** Counts settled records; returns the ones with no result. */
  private settle(
    entity: EntityDef,
    pending: MappedRecord[],
    results: Map<string, RecordResult>,
    outcome: BatchOutcome,
    resent: boolean,
  ): MappedRecord[] {
    const missing: MappedRecord[] = [];
    for (const record of pending) {
      const result = results.get(record.id);
      if (!result) missing.push(record);
      else if (result.success) {
        outcome.imported++;
        outcome.accepted.push({ record, created: true, serviceId: result.serviceId, resent });
      } else if (entity.alreadyExistsCodes.includes(result.code!)) {
        const duplicate = this.options.judgeAlreadyExists?.(record);
        if (duplicate === 'duplicate') outcome.skipped++;
        else if (duplicate) outcome.rejected.push({ record, ...duplicate });
        else {
          outcome.alreadyPresent++;
          outcome.accepted.push({ record, created: false, resent });
        }
      } else outcome.rejected.push({ record, code: result.code!, message: result.message! });
    }
    if (missing.length < pending.length) this.poisonInARow = 0;
    return missing;
  }

  /** A record the service named as failing for its own content: not a sign of a failing service. */
  private rejectOwnFault(
    record: MappedRecord,
    status: number,
    error: { code: string; message: string },
    outcome: BatchOutcome,
  ): void {
    const own = this.options.rejectAlone?.(record, status, error);
    outcome.rejected.push({ record, ...(own ?? { code: error.code, message: error.message }) });
  }

  private rejectPoison(
    record: MappedRecord,
    status: number,
    error: { code: string; message: string } | undefined,
    outcome: BatchOutcome,
  ): void {
    const own = this.options.rejectAlone?.(record, status, error);
    if (own !== undefined) {
      outcome.rejected.push({ record, ...own });
      return;
    }
    if (++this.poisonInARow > MAX_POISON_IN_A_ROW) {
      throw new RemoteError(
        'REMOTE_FAILING',
        `the service failed ${MAX_POISON_IN_A_ROW} records in a row, each alone, with HTTP ${status}: ` +
          'it is failing, not the records',
        {
          hint: 'the checkpoint is saved; run the same command again later to resume',
        },
      );
    }
    outcome.rejected.push({
      record,
      code: error?.code ?? `HTTP_${status}`,
      message: `the service failed this record alone with HTTP ${status}${error?.message ? `: ${error.message}` : ''}`,
    });
  }
}
