import path from 'node:path';
import type { MigrateConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { planSources, type EntityPlan } from '../sources/plan.js';
import { PRESET_NAMES } from '../presets/shared/context.js';

export interface RunPlan {
  plans: EntityPlan[];
  /** What the checkpoint remembers of the sources: the configured paths or preset, not today's file list. */
  sourcesIdentity: unknown;
}

/** The phases of a run: from `sources`, or from a preset reading an export as its system wrote it. */
export async function planRun(config: MigrateConfig, baseDir: string): Promise<RunPlan> {
  if (config.preset) {
    if (!(PRESET_NAMES as readonly string[]).includes(config.preset)) {
      throw new ConfigError('CONFIG_INVALID', `"preset" must be one of ${PRESET_NAMES.join(', ')}, not "${config.preset}"`);
    }
    if (!config.from) throw new ConfigError('CONFIG_INVALID', `--preset ${config.preset} needs --from <export folder or file>`);
    const from = path.resolve(baseDir, config.from);
    const idMapFile = path.join(path.dirname(config.rejects), 'migrate-ids.ndjson');
    const { planPreset } = await import('../presets/index.js');
    return {
      plans: await planPreset(config.preset, from, {
        cwd: baseDir,
        idMapFile,
        systemUser: config.systemUser,
        includeBots: config.includeBots,
        includeJoinLeave: config.includeJoinLeave,
        mediaBaseUrl: config.mediaBaseUrl,
      }),
      sourcesIdentity: { preset: config.preset, from },
    };
  }
  const identity = Object.fromEntries(Object.entries(config.sources).map(([k, v]) => [k, { path: v!.path, format: v!.format }]));
  return { plans: await planSources(config.sources, baseDir), sourcesIdentity: identity };
}
