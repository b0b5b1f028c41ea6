/**
 * Presets: an export exactly as another chat system wrote it -> the four entities, with no
 * hand-written mapping (`--preset slack --from ./export`). Each preset reads the export's small
 * index files and makes one pre-pass over its messages (streaming, keeping id sets and one entry per
 * user the users file lacks), writes the id mapping file aside, and returns EntityPlans whose inputs
 * read the export again, file by file and record by record, in the API's own field names.
 * The layouts and field-by-field mapping are in docs/presets.md and docs/presets/<name>.md.
 */
import { ConfigError } from '../errors.js';
import type { EntityPlan } from '../sources/plan.js';
import { loadSystem } from './index.js';
import { PRESET_NAMES, type SystemName } from './registry.js';
import { resolveOptions, type PresetContext, type PresetOptions } from './shared/context.js';
import { openExportTree } from './shared/export-tree.js';
import { IdCache, IdMapWriter, messageIds } from './shared/ids.js';
import { PrepassCache } from './shared/prepass-cache.js';

export { PRESET_NAMES } from './registry.js';
export type { PresetOptions } from './shared/context.js';
export { messageIdOf, serviceIdOf, toServiceId, toVendorId } from './shared/ids.js';

/** A preset's plans, and its id mapping file written aside until the run puts it in place. */
export interface PreparedPreset {
  plans: EntityPlan[];
  /** `commit` replaces the id map with this run's; `discard` leaves the one there untouched. */
  idMap: { commit(): Promise<void>; discard(): Promise<void> };
  /** The export's files the preset read nothing of, as records name them (`export/notes.txt`). */
  unread: { rel: string; where: string; disk?: string }[];
  /** Message files the pre-pass did not read again: their facts were kept from an earlier run. */
  reusedFiles: number;
}

/**
 * Plans an export. Without `idMapFile` no id map is written (validate). `import` commits the map
 * only once it holds the checkpoint of its migration, so a run that is refused replaces nothing.
 */
export async function preparePreset(name: string, from: string, options: PresetOptions): Promise<PreparedPreset> {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError('CONFIG_INVALID', `unknown preset "${name}": use one of ${PRESET_NAMES.join(', ')}`);
  }
  const plan = await (await loadSystem(name as SystemName)).preset();
  const tree = await openExportTree(from, options.cwd);
  const idMap = new IdMapWriter(options.idMapFile);
  await idMap.open();
  const resolved = resolveOptions(options);
  const ctx: PresetContext = {
    preset: name as SystemName,
    tree,
    options: resolved,
    idMap,
    uids: new IdCache(resolved.idRule),
    guids: new IdCache(resolved.idRule),
    muids: messageIds(resolved.idRule),
    names: new Map(),
    read: new Set(),
    prepass: PrepassCache.none(),
  };
  try {
    ctx.prepass = await PrepassCache.open(options.prepassFile, ctx);
    const plans = await plan(ctx);
    for (const plan of plans) {
      if (plan.entity.name === 'users') plan.idCollisions = ctx.uids.collisions;
      if (plan.entity.name === 'groups') plan.idCollisions = ctx.guids.collisions;
    }
    await idMap.finish();
    // The one place that knows what the preset read: every file it opened went through `pieces`.
    const unread = tree.files
      .filter((rel) => !ctx.read?.has(rel))
      .map((rel) => ({ rel, where: tree.where(rel), disk: tree.diskPath(rel) }));
    const commit = async () => {
      // Never a cache beside a map it does not point into, even when a crash comes between the two.
      await ctx.prepass.forget();
      await idMap.commit();
      await ctx.prepass.save(await idMap.committedSize());
    };
    return { plans, idMap: { commit, discard: () => idMap.discard() }, unread, reusedFiles: ctx.prepass.reused };
  } catch (error) {
    await idMap.discard();
    throw error;
  }
}

/** Plans an export and puts its id map in place at once (tests, tools that plan without sending). */
export async function planPreset(name: string, from: string, options: PresetOptions): Promise<EntityPlan[]> {
  const { plans, idMap } = await preparePreset(name, from, options);
  await idMap.commit();
  return plans;
}
