import path from 'node:path';
import { fsReason, idMapPathOf, prepassPathOf } from '../checkpoint/state-files.js';
import type { IdRule } from '../config/keys.js';
import type { MigrateConfig } from '../config/schema.js';
import { CheckpointError, ConfigError } from '../errors.js';
import { planSources, type EntityPlan } from '../sources/plan.js';
import { PRESET_NAMES } from '../systems/registry.js';
import { EXPORT_PLACEHOLDER_BASE, type ExportFolder } from '../media/media-sources.js';

export interface RunPlan {
  plans: EntityPlan[];
  /** What the checkpoint remembers of the sources: the configured paths or preset, not today's file list. */
  sourcesIdentity: unknown;
  /** A preset's id rule: the checkpoint keeps it, and a resume under another one is refused. */
  idRule?: IdRule;
  /**
   * A preset's id mapping file, written aside: the import commits it once it holds the checkpoint
   * of its migration, and discards it otherwise. Absent without a preset or without `writeIdMap`.
   */
  idMap?: { path: string; commit(): Promise<void>; discard(): Promise<void> };
  /** What reading `userMap` found worth saying (e-mails no user of the export has, and where it looked). */
  warnings: string[];
  /** The export's files its preset read nothing of (the tool's own state files left out), as records name them. */
  unreadFiles?: string[];
  /** The export folder a preset's relative media paths are in, under the URL prefix it gave them. */
  exportFolder?: ExportFolder;
}

/**
 * The phases of a run: from `sources`, or from a preset reading an export as its system wrote it.
 * Only an import that sends writes a preset's id map (`writeIdMap`): validate and --dry-run write
 * none, so they never touch a finished import's map.
 */
export async function planRun(
  config: MigrateConfig,
  baseDir: string,
  options = { writeIdMap: false },
): Promise<RunPlan> {
  const plan = await planInputs(config, baseDir, options);
  if (config.userMap === undefined && config.groupMap === undefined) return plan;
  const { loadIdMaps, recordMappedIds } = await import('../pipeline/map/load-id-maps.js');
  const loaded = await loadIdMaps(config, plan.plans, baseDir);
  for (const p of plan.plans) p.source = { ...p.source, ids: loaded.ids };
  for (const warning of loaded.emailWarnings) plan.warnings.push(`userMap: ${warning}`);
  if (!options.writeIdMap) return plan;
  // The mapping used goes into the id map beside the checkpoint, once this run holds the checkpoint.
  const file = plan.idMap?.path ?? idMapPathOf(config.checkpoint);
  const presetMap = plan.idMap;
  const commit = async () => {
    await presetMap?.commit();
    await recordMappedIds(file, loaded.used, presetMap !== undefined).catch((err: unknown) => {
      throw new CheckpointError('IDMAP_UNWRITABLE', `cannot write the id mapping file ${file}: ${fsReason(err)}`);
    });
  };
  plan.idMap = { path: file, commit, discard: async () => presetMap?.discard() };
  return plan;
}

/**
 * What the checkpoint remembers of a preset's export: the preset and the folder, not today's files,
 * so a later delta folder in it is the same migration. `sync` opens its run with it before it has
 * pulled anything to plan.
 */
export function presetIdentity(config: MigrateConfig, baseDir: string): { preset: string; from: string } | undefined {
  if (!config.preset || !config.from) return undefined;
  return { preset: config.preset, from: path.resolve(baseDir, config.from) };
}

async function planInputs(config: MigrateConfig, baseDir: string, { writeIdMap = false }): Promise<RunPlan> {
  if (config.preset) {
    if (!(PRESET_NAMES as readonly string[]).includes(config.preset)) {
      throw new ConfigError(
        'CONFIG_INVALID',
        `"preset" must be one of ${PRESET_NAMES.join(', ')}, not "${config.preset}"`,
      );
    }
    if (!config.from)
      throw new ConfigError('CONFIG_INVALID', `--preset ${config.preset} needs --from <export folder or file>`);
    const { from } = presetIdentity(config, baseDir)!;
    const idMapFile = writeIdMap ? idMapPathOf(config.checkpoint) : undefined;
    const prepassFile = prepassPathOf(config.checkpoint);
    // media.exportFiles: relative paths become URLs the media pass finds the files by (docs/media.md).
    const carryFiles = config.media?.exportFiles === true;
    const mediaBaseUrl = config.mediaBaseUrl ?? (carryFiles ? EXPORT_PLACEHOLDER_BASE : undefined);
    const { preparePreset } = await import('../systems/preset.js');
    const prepared = await preparePreset(config.preset, from, {
      cwd: baseDir,
      idMapFile,
      prepassFile,
      idRule: config.idRule as IdRule,
      systemUser: config.systemUser,
      includeBots: config.includeBots,
      includeJoinLeave: config.includeJoinLeave,
      mediaBaseUrl,
    });
    const idMap = idMapFile === undefined ? undefined : { path: idMapFile, ...prepared.idMap };
    const unreadFiles = prepared.unread
      .filter((f) => !isStateFile(f.rel, f.disk, config, baseDir) && !MEDIA_FILE.test(f.rel))
      .map((f) => f.where);
    const exportFolder = carryFiles ? { baseUrl: mediaBaseUrl!.replace(/\/+$/, ''), folder: from } : undefined;
    return {
      plans: prepared.plans,
      sourcesIdentity: presetIdentity(config, baseDir),
      idRule: config.idRule as IdRule,
      idMap,
      exportFolder,
      unreadFiles,
      warnings: unreadFiles.length === 0 ? [] : [unreadWarning(config.preset, unreadFiles)],
    };
  }
  const identity = Object.fromEntries(
    Object.entries(config.sources).map(([k, v]) => [k, { path: v!.path, format: v!.format }]),
  );
  return { plans: await planSources(config.sources, baseDir), sourcesIdentity: identity, warnings: [] };
}

/** Media files are what messages point at (attachments), not records: they are not named as unread. */
const MEDIA_FILE = /\.(jpe?g|png|gif|webp|heic|bmp|svg|tiff?|mp4|mov|webm|mkv|avi|mp3|m4a|ogg|oga|opus|wav|tgs)$/i;

/** The tool's own files (checkpoint, rejects, run log, id log, id map, config) kept in the export folder. */
function isStateFile(rel: string, disk: string | undefined, config: MigrateConfig, baseDir: string): boolean {
  const name = rel.split('/').pop() ?? rel;
  if (name === '.migrate.config.json' || name === 'migrate-rejects.ndjson') return true;
  if (disk === undefined) return false;
  const file = path.resolve(disk);
  const checkpoint = path.resolve(baseDir, config.checkpoint ?? '.migrate-checkpoint.json');
  const base = checkpoint.endsWith('.json') ? checkpoint.slice(0, -'.json'.length) : checkpoint;
  if (file === checkpoint || file.startsWith(`${base}.`)) return true;
  return config.rejects !== undefined && file === path.resolve(baseDir, config.rejects);
}

/** One line naming every file the preset leaves unread, with their count. */
export function unreadWarning(preset: string, files: readonly string[]): string {
  const count = files.length === 1 ? '1 file' : `${files.length} files`;
  const verb = files.length === 1 ? 'is' : 'are';
  return `${count} of the export ${verb} not read by the ${preset} preset: ${files.join(', ')}`;
}
