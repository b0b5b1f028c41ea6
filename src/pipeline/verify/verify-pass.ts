import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointStore } from '../../checkpoint/store.js';
import { type Clock, systemClock } from '../../clock.js';
import { ENTITY_ORDER, type EntityName, type MappedRecord } from '../../entities/types.js';
import type { RestClient } from '../../http/rest-client.js';
import type { EntityPlan } from '../../sources/plan.js';
import { emptyCounts, type RunEvents } from '../events.js';
import { type Compared, compareParts } from './compare-parts.js';
import { COMPARED_FIELDS } from './compared-fields.js';
import { keyOf } from './expected-index.js';
import { listFlagged } from './list-flagged.js';
import { readExpected } from './read-expected.js';
import { inputsOfWindow, type VerifiedBefore } from './window-inputs.js';
import { readServiceSide, type ServiceIdLookup } from './read-service.js';
import { PART_RECORDS, partsFor, ServiceSpill } from './verify-store.js';
import type { EntityVerdict, VerifyResult } from './verify-result.js';

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
  loadIdLog: () => Promise<ServiceIdLookup | undefined>;
  /** Records sent from outside the export (read-service.ts `outsideExport`). */
  outsideExport?: ReadonlySet<string>;
  events: RunEvents;
  signal: AbortSignal;
  /** Counts of the read client's requests, kept by whoever made it. */
  requests: () => { requests: number; retries: number };
  onMissing?(record: MappedRecord): Promise<void>;
  /** A phase's elapsed time (its rate and ETA) is on the run's clock; default the system's. */
  clock?: Clock;
  /** Where the comparison's files go while it runs (a folder made and removed inside it); default the system's temp. */
  spillDir?: string;
  /** Expected records compared in memory at a time (verify-store.ts); smaller spills more parts. */
  partRecords?: number;
  /** The migration's checkpoint: with `sinceSec`, old files it knows unchanged go unread (window-inputs.ts). */
  checkpoint?: CheckpointStore;
  /** A sync round's: what the last good round verified (window-inputs.ts). */
  verifiedBefore?: VerifiedBefore;
}

/**
 * `verify`: reads the export as import does and spills a hash per compared field of each record it
 * sends, then reads the service entity by entity, spilling what it lists, and compares the two part by
 * part; then names what is missing or different with a second reading of the export. Memory holds
 * one part's numbers at a time, never records.
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
  const dir = await mkdtemp(path.join(options.spillDir ?? tmpdir(), '.verify-'));
  const spills: ServiceSpill[] = [];
  try {
    const { plans, notRead } = await inputsOfWindow(options.plans, options);
    const side = await readExpected({
      plans,
      entities,
      nowSec: options.nowSec,
      importSoftDeleted: options.importSoftDeleted,
      sinceSec: options.sinceSec,
      retentionCutoffSec: cutoff,
      dir,
      signal: options.signal,
      outsideExport: options.outsideExport,
    });
    const verdicts: Partial<Record<EntityName, EntityVerdict>> = {};
    const compared: Partial<Record<EntityName, Compared>> = {};
    const groupIds = async () => {
      const ids: string[] = [];
      for await (const page of options.client.pages('groups')) for (const g of page) ids.push(String(g.guid));
      return ids;
    };
    const outsideKeys = outsideKeysOf(options.outsideExport);
    const held = { parts: 0, atMost: 0 };
    for (const entity of ENTITY_ORDER) {
      const expected = side.spills[entity];
      if (!entities.has(entity) || expected === undefined) continue;
      const parts = partsFor(expected.count, options.partRecords ?? PART_RECORDS, options.sample);
      expected.seal(parts);
      const counts = emptyCounts();
      const phaseStart = clock.now();
      // The bar counts the service's items read, of the export's records looked for; what matched is
      // known once the reading is done (the comparison waits for every item: see verify-store.ts).
      const lookedFor = options.sample > 0 ? Math.min(options.sample, expected.count) : expected.distinct();
      options.events.phaseStarted(entity, lookedFor);
      const service = new ServiceSpill(dir, entity, parts);
      spills.push(service);
      await readServiceSide(
        entity,
        service,
        {
          client: options.client,
          loadIdLog: options.loadIdLog,
          sinceSec: options.sinceSec,
          onProgress: (_e, read) => {
            counts.read = Math.min(read, lookedFor);
            counts.alreadyPresent = counts.read;
            counts.elapsedMs = clock.now() - phaseStart;
            options.events.progress(entity, counts);
          },
        },
        groupIds,
      );
      service.sealWriters();
      const result = compareParts(entity, expected, service, {
        dir,
        sample: options.sample,
        countExtras: options.sample === 0,
        outsideKeys: outsideKeys.get(entity) ?? new Set(),
      });
      const verdict = result.verdict;
      verdict.refused = side.refused[entity] ?? 0;
      verdict.skipped += side.skipped[entity] ?? 0;
      const hidden = expected.given & ~result.compared;
      if (hidden !== 0)
        verdict.notShown = COMPARED_FIELDS[entity].filter((_, i) => hidden & (1 << i)).map((f) => f.name);
      verdicts[entity] = verdict;
      compared[entity] = result;
      held.parts = Math.max(held.parts, parts);
      held.atMost = Math.max(held.atMost, result.heldAtMost);
      counts.read = lookedFor;
      counts.alreadyPresent = result.matched;
      counts.elapsedMs = clock.now() - phaseStart;
      options.events.phaseFinished(entity, counts, true);
    }
    const flagged = Object.values(verdicts).some((v) => v.missing + v.different > 0);
    if (flagged) {
      options.events.info('naming what is missing or different: reading the export again ...');
      await listFlagged({
        plans,
        compared,
        verdicts,
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
      held,
      ...(notRead > 0 ? { filesNotRead: notRead } : {}),
    };
  } finally {
    for (const s of spills) s.values.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Per entity, the keys of the ids of records sent from outside the export (`<entity>\t<id>`). */
function outsideKeysOf(outside: ReadonlySet<string> | undefined): Map<EntityName, Set<number>> {
  const keys = new Map<EntityName, Set<number>>();
  for (const entry of outside ?? []) {
    const tab = entry.indexOf('\t');
    const entity = entry.slice(0, tab) as EntityName;
    if (!keys.has(entity)) keys.set(entity, new Set());
    keys.get(entity)!.add(keyOf(entry.slice(tab + 1)));
  }
  return keys;
}
