import { type Clock, systemClock } from '../../clock.js';
import { ENTITY_ORDER, type EntityName, type MappedRecord } from '../../entities/types.js';
import type { RestClient } from '../../http/rest-client.js';
import type { EntityPlan } from '../../sources/plan.js';
import { emptyCounts, type RunEvents } from '../events.js';
import { DIFFERENT, type ExpectedIndex, SAME } from './expected-index.js';
import { listFlagged } from './list-flagged.js';
import { readExpected } from './read-expected.js';
import { readServiceSide, type ServiceIdLookup } from './read-service.js';
import { emptyVerdict, type EntityVerdict, type VerifyResult } from './verify-result.js';

export interface VerifyOptions {
  plans: EntityPlan[];
  client: RestClient;
  /** The entities to verify (default: every configured one). */
  entities?: ReadonlySet<EntityName>;
  nowSec: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** 0: unlimited. */
  retentionDays: number;
  /** Compare a sample of this many records per entity (0: all). */
  sample: number;
  /** The import's id log: how messages read without a muid are matched. */
  loadIdLog: (messages: ExpectedIndex) => Promise<ServiceIdLookup | undefined>;
  /** Records sent from outside the export (read-service.ts `outsideExport`). */
  outsideExport?: ReadonlySet<string>;
  events: RunEvents;
  signal: AbortSignal;
  /** Counts of the read client's requests, kept by whoever made it. */
  requests: () => { requests: number; retries: number };
  onMissing?(record: MappedRecord): Promise<void>;
  /** A phase's elapsed time (its rate and ETA) is on the run's clock; default the system's. */
  clock?: Clock;
}

/**
 * `verify`: reads the export as import does and keeps a digest per record it sends, then reads the
 * service entity by entity and marks each record found, equal or not; then names what is missing or
 * different with a second reading of the export. Memory holds numbers per record, not records.
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const clock = options.clock ?? systemClock;
  const started = Date.now();
  const configured = options.plans.map((p) => p.entity.name);
  const entities = new Set(configured.filter((e) => options.entities?.has(e) ?? true));
  const cutoff = options.retentionDays > 0 ? options.nowSec - options.retentionDays * 86_400 : undefined;
  // One read first: a wrong key or an unreachable service stops verify before a long reading of the
  // export; and undici's first request (its HTTP parser compiled) briefly takes memory, better spent
  // before the export's digests are held than on top of them.
  await options.client.get('users', { perPage: 1, page: 1 });
  options.events.info('reading the export ...');
  const side = await readExpected({
    plans: options.plans,
    entities,
    nowSec: options.nowSec,
    importSoftDeleted: options.importSoftDeleted,
    sinceSec: options.sinceSec,
    retentionCutoffSec: cutoff,
    sample: options.sample,
    signal: options.signal,
    outsideExport: options.outsideExport,
  });
  const verdicts: Partial<Record<EntityName, EntityVerdict>> = {};
  const differing: Partial<Record<EntityName, Map<number, Record<string, unknown>>>> = {};
  const groupIds = async () => {
    const ids: string[] = [];
    for await (const page of options.client.pages('groups')) for (const g of page) ids.push(String(g.guid));
    return ids;
  };
  for (const entity of ENTITY_ORDER) {
    const index = side.indexes[entity];
    if (!entities.has(entity) || index === undefined) continue;
    const counts = emptyCounts();
    const phaseStart = clock.now();
    // The bar counts the export's records found, of those looked for: a record the export repeats is
    // looked for once, and what else the service lists (extras, records sent by replay) is no part of it.
    const lookedFor = index.size - index.repeats;
    options.events.phaseStarted(entity, lookedFor);
    const service = await readServiceSide(
      entity,
      index,
      {
        client: options.client,
        loadIdLog: options.loadIdLog,
        countExtras: options.sample === 0,
        outsideExport: options.outsideExport,
        onProgress: (_e, read, matched) => {
          counts.read = read;
          counts.alreadyPresent = matched;
          counts.elapsedMs = clock.now() - phaseStart;
          options.events.progress(entity, counts);
        },
      },
      groupIds,
    );
    const verdict = tally(index);
    verdict.refused = side.refused[entity] ?? 0;
    verdict.skipped = (side.skipped[entity] ?? 0) + index.repeats;
    // Sent by replay or repair from outside the export: expected, and found.
    verdict.expected += service.outside;
    verdict.present += service.outside;
    verdict.extra = service.extra;
    verdict.extraIds = service.extraIds;
    verdict.repeated = service.repeated;
    verdict.serviceRead = service.read;
    verdicts[entity] = verdict;
    differing[entity] = service.differing;
    counts.read = lookedFor;
    counts.alreadyPresent = service.matched;
    counts.elapsedMs = clock.now() - phaseStart;
    options.events.phaseFinished(entity, counts, true);
  }
  const flagged = Object.values(verdicts).some((v) => v.missing + v.different > 0);
  if (flagged) {
    options.events.info('naming what is missing or different: reading the export again ...');
    await listFlagged({
      plans: options.plans,
      indexes: side.indexes,
      verdicts,
      differing,
      importSoftDeleted: options.importSoftDeleted,
      sinceSec: options.sinceSec,
      signal: options.signal,
      onMissing: options.onMissing,
    });
  }
  const { requests, retries } = options.requests();
  return {
    entities: verdicts,
    ok: !flagged,
    sample: options.sample > 0 ? options.sample : undefined,
    retentionDays: options.retentionDays,
    requests,
    retries,
    elapsedMs: Date.now() - started,
  };
}

function tally(index: ExpectedIndex): EntityVerdict {
  const v = emptyVerdict();
  v.expected = index.size - index.repeats;
  for (let i = 0; i < index.size; i++) {
    if (index.isRepeat(i)) continue;
    const state = index.stateOf(i);
    if (state === SAME) v.present++;
    else if (state === DIFFERENT) v.different++;
    else if (index.isBeyondRetention(i)) v.beyondRetention++;
    else v.missing++;
  }
  return v;
}
