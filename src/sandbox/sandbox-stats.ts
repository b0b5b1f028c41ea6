import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import type { EntityStats, FaultName, SandboxStats } from './types.js';

export type RecordFate = 'stored' | 'alreadyExists' | 'rejected' | 'lost' | 'deleted';

function emptyStats(): SandboxStats {
  const perEntity = {} as Record<EntityName, EntityStats>;
  for (const entity of ENTITY_ORDER) {
    perEntity[entity] = {
      stored: 0,
      alreadyExists: 0,
      rejected: 0,
      lost: 0,
      deleted: 0,
      requests: 0,
      fullRequests: 0,
      recordsReceived: 0,
    };
  }
  return {
    requests: 0,
    readRequests: 0,
    byStatus: {},
    faults: {
      drop: 0,
      spurious429: 0,
      fail500BeforeStore: 0,
      fail500AfterStore: 0,
      slow: 0,
      poison: 0,
      beyondRetention: 0,
    },
    perEntity,
    rateLimited: 0,
    firstRequestAt: null,
    lastRequestAt: null,
    maxRecordsInARequest: 0,
  };
}

/**
 * Counters that let a test or a bench check the client from the server's side: did it fill its
 * batches, did it retry the ambiguous 500s, did it ever exceed the rate.
 */
export class StatsCollector {
  private stats = emptyStats();

  constructor(private readonly maxRecordsPerRequest: number) {}

  requestArrived(now: number): void {
    this.stats.requests++;
    this.stats.firstRequestAt ??= now;
    this.stats.lastRequestAt = now;
  }

  readArrived(): void {
    this.stats.readRequests++;
  }

  answered(status: number): void {
    const key = String(status);
    this.stats.byStatus[key] = (this.stats.byStatus[key] ?? 0) + 1;
  }

  fault(name: FaultName): void {
    this.stats.faults[name]++;
  }

  rateLimited(): void {
    this.stats.rateLimited++;
  }

  /** A well-formed body was read; over-limit bodies count only towards the maximum seen. */
  bodyRead(entity: EntityName, records: number, withinLimit: boolean): void {
    this.stats.maxRecordsInARequest = Math.max(this.stats.maxRecordsInARequest, records);
    if (!withinLimit) return;
    const s = this.stats.perEntity[entity];
    s.requests++;
    s.recordsReceived += records;
    if (records === this.maxRecordsPerRequest) s.fullRequests++;
  }

  record(entity: EntityName, fate: RecordFate): void {
    this.stats.perEntity[entity][fate]++;
  }

  snapshot(): SandboxStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = emptyStats();
  }
}
