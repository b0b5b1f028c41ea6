import { statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { findConfigFile, type FoundConfigFile, notFoundText } from './config-file.js';
import { CONFIG_KEY_NAMES, DEFAULTS, specOf, type MigrateConfig } from './keys.js';
import { ConfigProblems } from './problems.js';
import { collectConfigLayer, valueFromText } from './schema.js';
import { checkTarget } from './target.js';

export interface LoadConfigOptions {
  cwd: string;
  /** `--config FILE`; otherwise cosmiconfig searches the working directory. */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Settings given as flags; they win over the environment and the file. */
  flags: Record<string, unknown>;
  /**
   * import sends: it needs a key and a target, and refuses plain http off loopback. validate and
   * status work offline without either, and only warn of a target import would refuse.
   */
  requireApiKey: boolean;
  /** The command reads the export: with no config file, nothing saying what to read is a problem here. */
  readsExport?: boolean;
}

export interface LoadedConfig {
  config: MigrateConfig;
  /** Where relative paths of the file resolve from: the config file's folder, or the working directory. */
  baseDir: string;
  /** The config file used, if any. */
  file?: string;
  /** Things the user should know that do not stop the run (e.g. a readable key file). */
  warnings: string[];
  /** The keys the user set (file, environment or flag): a default is not their decision (retentionDays). */
  chosen: ReadonlySet<string>;
}

const ENV = 'the environment';
const FLAGS = 'command-line flags';

/**
 * Merges defaults < config file < environment < flags, checking each layer; resolves paths. Every
 * problem found in any layer is thrown at once, as one ConfigError (a ConfigProblemsError).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const problems = new ConfigProblems();
  let found: FoundConfigFile | undefined;
  let fileRead = true;
  try {
    found = await findConfigFile(options.cwd, options.configFile);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // The environment and the flags are still checked; what the file would have set is not known.
    problems.add('config', err.message, err.code);
    fileRead = false;
  }
  const fileLayer = found ? collectConfigLayer(found.config ?? {}, found.display, problems) : {};
  const baseDir = found ? path.dirname(found.filepath) : options.cwd;
  const envLayer = collectConfigLayer(readEnvLayer(options.env), ENV, problems);
  const flagLayer = collectConfigLayer(options.flags, FLAGS, problems);

  if (found && typeof fileLayer.apiKey === 'string') {
    const mode = statSync(found.filepath).mode;
    if (mode & 0o077) {
      warnings.push(
        `${found.display} holds the apiKey and can be read by other users (mode ${(mode & 0o777).toString(8)}); ` +
          `run: chmod 600 ${found.display}, or pass the key in MIGRATE_API_KEY instead`,
      );
    }
  }

  const merged = { ...DEFAULTS, sources: {}, ...fileLayer, ...envLayer, ...flagLayer } as Partial<MigrateConfig>;
  // A relative path in a flag means the working directory; anywhere else, the config file's folder.
  const values = merged as Record<string, unknown>;
  for (const key of CONFIG_KEY_NAMES) {
    const value = values[key];
    if (specOf(key).kind !== 'path' || typeof value !== 'string') continue;
    values[key] = path.resolve(flagLayer[key] === undefined ? baseDir : options.cwd, value);
  }
  if (fileRead) {
    const layerOf = (key: keyof MigrateConfig) =>
      key in flagLayer ? FLAGS : key in envLayer ? ENV : (found?.display ?? 'the config file');
    merged.baseUrl = checkTarget(merged, { sends: options.requireApiKey, layerOf, problems, warnings });
    if (options.requireApiKey && !merged.apiKey && !problems.touches('apiKey')) {
      problems.add(
        'apiKey',
        'apiKey is missing: set MIGRATE_API_KEY (preferred), or "apiKey" in the config file',
        'CONFIG_MISSING_API_KEY',
      );
    }
  }
  if (found === undefined && fileRead) {
    // With no file, what is missing is most likely the file: say so first, and where it was looked for.
    const noSources = Object.keys(merged.sources ?? {}).length === 0 && !(merged.preset && merged.from);
    if (options.readsExport && noSources) problems.add('sources', 'no sources: nothing says what to read');
    if (problems.list.length > 0) {
      problems.list.unshift({ code: 'CONFIG_NOT_FOUND', message: notFoundText(options.cwd) });
      problems.throwIfAny(
        'CONFIG_NOT_FOUND',
        'run `chat-migrate init <export>` here to write one, or give --config <file>',
      );
    }
  }
  problems.throwIfAny();
  const chosen = new Set([...Object.keys(fileLayer), ...Object.keys(envLayer), ...Object.keys(flagLayer)]);
  return { config: merged as MigrateConfig, baseDir, file: found?.filepath, warnings, chosen };
}

/** The keys whose table entry names an environment variable; an empty variable is unset. */
function readEnvLayer(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const { env: name, kind } = specOf(key);
    const text = name === undefined ? undefined : env[name];
    if (text !== undefined && text !== '') layer[key] = valueFromText(kind, text);
  }
  return layer;
}
