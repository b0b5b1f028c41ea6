/** Checks each layer of settings against the key table (keys.ts). */
import { ConfigError } from '../errors.js';
import { CONFIG_KEY_NAMES, CONFIG_KEYS, specOf, type ConfigKey, type KeyKind, type MigrateConfig } from './keys.js';
import { checkSources, isPlainObject } from './sources-schema.js';

// The run's config type, where its users have always found it.
export type { MigrateConfig } from './keys.js';

/** Keys a config file may carry for editors and humans; ignored. */
const IGNORED_KEYS = new Set(['$schema', '//', 'comment']);

const fail = (where: string, key: string, message: string): never => {
  throw new ConfigError('CONFIG_INVALID', `${where}: "${key}" ${message}`);
};

export const isConfigKey = (key: string): key is ConfigKey => Object.hasOwn(CONFIG_KEYS, key);

/**
 * Checks one layer of raw settings (a config file, the environment or flags) key by key, so that an
 * unknown key or a wrong type is reported before anything is read or sent.
 */
export function checkConfigLayer(raw: unknown, where: string): Partial<MigrateConfig> {
  if (!isPlainObject(raw)) throw new ConfigError('CONFIG_INVALID', `${where}: the configuration must be a JSON object`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (IGNORED_KEYS.has(key)) continue;
    if (!isConfigKey(key)) return fail(where, key, `is not a known key (known: ${CONFIG_KEY_NAMES.join(', ')})`);
    // null leaves a key unset, so an example file can show every key without setting it.
    if (value === undefined || value === null) continue;
    out[key] = checkValue(where, key, value);
  }
  return out as Partial<MigrateConfig>;
}

function checkValue(where: string, key: ConfigKey, value: unknown): unknown {
  const spec = specOf(key);
  switch (spec.kind) {
    case 'string':
    case 'path':
    case 'url':
      if (typeof value !== 'string' || value === '') fail(where, key, 'must be a non-empty string');
      if (spec.pattern && !spec.pattern.regex.test(value as string)) fail(where, key, `must be ${spec.pattern.what}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') fail(where, key, 'must be true or false');
      return value;
    case 'int': {
      const min = spec.min ?? 1;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
        fail(where, key, `must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
      }
      if (spec.max !== undefined && (value as number) > spec.max) {
        fail(where, key, `must be at most ${spec.max}${spec.maxWhy ? ` (${spec.maxWhy})` : ''}`);
      }
      return value;
    }
    case 'rate':
      if (value === 'auto') return value;
      if (typeof value !== 'number' || !(value > 0)) fail(where, key, 'must be a positive number or "auto"');
      return value;
    case 'sources':
      return checkSources(where, value);
  }
}

/**
 * An environment variable's text as the value its key's kind holds, for the layer check; text that is
 * not one stays text, so the check names the key.
 */
export function valueFromText(kind: KeyKind, text: string): unknown {
  const number = text.trim() === '' ? NaN : Number(text);
  switch (kind) {
    case 'int':
      return Number.isInteger(number) ? number : text;
    case 'rate':
      return text === 'auto' || Number.isNaN(number) ? text : number;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}
