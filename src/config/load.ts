import { statSync } from 'node:fs';
import path from 'node:path';
import { cosmiconfig, getDefaultSearchPlaces } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { CONFIG_KEY_NAMES, DEFAULTS, specOf, type MigrateConfig } from './keys.js';
import { checkConfigLayer, valueFromText } from './schema.js';

const MODULE_NAME = 'migrate';

export interface LoadConfigOptions {
  cwd: string;
  /** `--config FILE`; otherwise cosmiconfig searches the working directory. */
  configFile?: string;
  env: NodeJS.ProcessEnv;
  /** Settings given as flags; they win over the environment and the file. */
  flags: Record<string, unknown>;
  /** import needs a key and a target; validate and status work offline without either. */
  requireApiKey: boolean;
}

export interface LoadedConfig {
  config: MigrateConfig;
  /** Where relative paths of the file resolve from: the config file's folder, or the working directory. */
  baseDir: string;
  /** The config file used, if any. */
  file?: string;
  /** Things the user should know that do not stop the run (e.g. a readable key file). */
  warnings: string[];
}

/** Merges defaults < config file < environment < flags, checking each layer; resolves paths. */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const found = await findConfigFile(options);
  const fileLayer = found ? checkConfigLayer(found.config ?? {}, found.display) : {};
  const baseDir = found ? path.dirname(found.filepath) : options.cwd;

  const envLayer = checkConfigLayer(readEnvLayer(options.env), 'the environment');
  const flagLayer = checkConfigLayer(options.flags, 'command-line flags');

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
  // validate and status work offline: a target is checked when given, and needed only to send.
  const hasTarget = Boolean(merged.baseUrl || (merged.appId && merged.region));
  merged.baseUrl = options.requireApiKey || hasTarget ? resolveBaseUrl(merged) : '';
  if (options.requireApiKey && !merged.apiKey) {
    throw new ConfigError(
      'CONFIG_MISSING_API_KEY',
      'apiKey is missing: set MIGRATE_API_KEY (preferred), or "apiKey" in the config file',
    );
  }
  return { config: merged as MigrateConfig, baseDir, file: found?.filepath, warnings };
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

async function findConfigFile(options: LoadConfigOptions) {
  const explorer = cosmiconfig(MODULE_NAME, {
    // The product's documented file name is not among cosmiconfig's defaults (STACK.md).
    searchPlaces: ['.migrate.config.json', ...getDefaultSearchPlaces(MODULE_NAME)],
    searchStrategy: 'none',
  });
  try {
    const result = options.configFile
      ? await explorer.load(path.resolve(options.cwd, options.configFile))
      : await explorer.search(options.cwd);
    if (!result) return undefined;
    return { ...result, display: path.relative(options.cwd, result.filepath) || result.filepath };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const where = options.configFile ?? 'the config file';
    if (e.code === 'ENOENT') throw new ConfigError('CONFIG_NOT_FOUND', `config file not found: ${where}`);
    // cosmiconfig's parse errors name the file and position; keep its first line only.
    const first = String(e.message ?? e).split('\n')[0];
    throw new ConfigError('CONFIG_UNREADABLE', `cannot read ${where}: ${first}`);
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The service URL: `baseUrl`, else built from appId and region. Only https, or http to a loopback sandbox. */
export function resolveBaseUrl(config: Partial<MigrateConfig>): string {
  let raw = config.baseUrl;
  if (!raw) {
    if (!config.appId || !config.region) {
      throw new ConfigError('CONFIG_MISSING_TARGET', 'set appId and region (or baseUrl) to say where to import');
    }
    raw = `https://${config.appId}.api-${config.region}.cometchat.io`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('CONFIG_INVALID', `"baseUrl" is not a valid URL: ${raw}`);
  }
  if (url.username || url.password) throw new ConfigError('CONFIG_INVALID', '"baseUrl" must not carry credentials');
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
    throw new ConfigError(
      'CONFIG_INSECURE_URL',
      `"baseUrl" uses plain http to ${url.hostname}: the API key would travel unencrypted. ` +
        'Use https:// (http is allowed only for a loopback sandbox)',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('CONFIG_INVALID', `"baseUrl" must be an https:// URL, not ${url.protocol}`);
  }
  return url.toString().replace(/\/+$/, '');
}
