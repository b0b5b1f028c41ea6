/**
 * Presets: an export exactly as another chat system wrote it -> the four entities, with no
 * hand-written mapping (`--preset slack --from ./export`). Each preset reads the export's small
 * index files and makes one pre-pass over its messages (streaming, keeping id sets and one entry per
 * user the users file lacks), writes the id mapping file, and returns EntityPlans whose inputs read
 * the export again, file by file and record by record, in the API's own field names.
 * The layouts and field-by-field mapping are in the README, section Presets.
 */
import { rm } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import type { EntityPlan } from '../pipeline/plan.js';
import { PRESET_NAMES, resolveOptions, type PresetContext, type PresetName, type PresetOptions } from './context.js';
import { planDiscord } from './discord.js';
import { openExportTree } from './export-tree.js';
import { IdCache, IdMapWriter } from './ids.js';
import { planSendbird } from './sendbird.js';
import { planSlack } from './slack.js';
import { planStream } from './stream.js';
import { planTelegram } from './telegram.js';

export { PRESET_NAMES } from './context.js';
export type { PresetOptions } from './context.js';
export { toServiceId } from './ids.js';

const PLANNERS: Record<PresetName, (ctx: PresetContext) => Promise<EntityPlan[]>> = {
  sendbird: planSendbird,
  stream: planStream,
  slack: planSlack,
  discord: planDiscord,
  telegram: planTelegram,
};

export async function planPreset(name: string, from: string, options: PresetOptions): Promise<EntityPlan[]> {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError('CONFIG_INVALID', `unknown preset "${name}": use one of ${PRESET_NAMES.join(', ')}`);
  }
  const tree = await openExportTree(from, options.cwd);
  const idMap = new IdMapWriter(options.idMapFile);
  await idMap.open();
  const ctx: PresetContext = {
    preset: name as PresetName,
    tree,
    options: resolveOptions(options),
    idMap,
    uids: new IdCache(),
    guids: new IdCache(),
  };
  try {
    const plans = await PLANNERS[ctx.preset](ctx);
    await idMap.close();
    return plans;
  } catch (error) {
    await idMap.close().catch(() => undefined);
    await rm(options.idMapFile, { force: true }).catch(() => undefined);
    throw error;
  }
}
