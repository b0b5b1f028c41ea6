import { ENTITIES, type EntityDef } from '../entities/index.js';
import { ENTITY_ORDER, type EntityName, type IdCollisions, type IdMaps, type SourceItem } from '../entities/types.js';
import type { SourceConfig, SourcesConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { countRecords } from './count-records.js';
import { readSourceBatches, readSourceFile, resolveSourceFiles, type ResolvedFile } from './index.js';
import type { ReadOptions } from './types.js';

/**
 * One stream of records for one entity: a source file, or a part of a preset's export. `display`
 * names it in problems, rejects and the checkpoint; ordinals count its record slots from 0 and must be
 * the same on every read, which is what resume relies on.
 */
export interface RecordInput {
  display: string;
  /** The file on disk, when there is one: its fingerprint tells growth from a rewrite. */
  path?: string;
  /** The source file it reads as it is (not a preset's part): validate may share its reading with a worker. */
  file?: ResolvedFile;
  read(options: ReadOptions & { entity: EntityName }): AsyncIterable<SourceItem>;
  /** The same items in batches, when the input can hand them over so (file readers do): the hot path. */
  readBatches?(options: ReadOptions & { entity: EntityName }): AsyncIterable<readonly SourceItem[]>;
  /** How many record slots a reading will give, when a quick pass can tell (a progress bar's total and ETA). */
  estimate?(signal?: AbortSignal): Promise<number>;
}

/** One phase of a run: an entity, its mapping settings and its inputs, in order. */
export interface EntityPlan {
  entity: EntityDef;
  source: Pick<SourceConfig, 'map' | 'deletion' | 'values'> & { ids?: IdMaps };
  inputs: RecordInput[];
  /** A preset's users and groups: the ids two export ids share, for the duplicate check to name both. */
  idCollisions?: IdCollisions;
}

/** The id collisions of a run's plans, per entity (ExportIndex's `idCollisions`). */
export function idCollisionsOf(plans: readonly EntityPlan[]): Partial<Record<EntityName, IdCollisions>> {
  const out: Partial<Record<EntityName, IdCollisions>> = {};
  for (const plan of plans) if (plan.idCollisions !== undefined) out[plan.entity.name] = plan.idCollisions;
  return out;
}

/** Resolves every configured source, in import order, before anything is read: a missing file stops the run early. */
export async function planSources(sources: SourcesConfig, baseDir: string): Promise<EntityPlan[]> {
  const plans: EntityPlan[] = [];
  for (const name of ENTITY_ORDER) {
    const source = sources[name];
    if (!source) continue;
    const files = await resolveSourceFiles(source, baseDir);
    plans.push({
      entity: ENTITIES[name],
      source,
      inputs: files.map((file) => ({
        display: file.display,
        path: file.path,
        file,
        read: (o) => readSourceFile(file, o),
        readBatches: (o) => readSourceBatches(file, o),
        estimate: (signal?: AbortSignal) => countRecords(file, name, signal),
      })),
    });
  }
  if (plans.length === 0) {
    throw new ConfigError(
      'CONFIG_NO_SOURCES',
      'no sources configured: set "sources" in the config file (e.g. {"users": {"path": "users.csv"}})',
    );
  }
  return plans;
}

/** An input's items in batches: its own batches, or its single items gathered 256 at a time. */
export async function* readInputBatches(
  input: RecordInput,
  options: ReadOptions & { entity: EntityName },
): AsyncIterable<readonly SourceItem[]> {
  if (input.readBatches) {
    yield* input.readBatches(options);
    return;
  }
  let batch: SourceItem[] = [];
  for await (const item of input.read(options)) {
    batch.push(item);
    if (batch.length >= 256) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
