import { ConfigError } from '../errors.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import type { SourceConfig, SourcesConfig } from './types.js';

/** The settings a run uses, after file, environment and flags are merged and checked. */
export interface MigrateConfig {
  appId?: string;
  region?: string;
  apiKey?: string;
  baseUrl: string;
  sources: SourcesConfig;
  checkpoint: string;
  rejects: string;
  batchSize: number;
  concurrency: number;
  /** A number, or 'auto': learn the limit from the service's headers, starting at 60. */
  requestsPerMinute: number | 'auto';
  retries: number;
  timeoutMs: number;
  /** Shortest time between checkpoint writes while batches are answered; 0 writes after each. */
  checkpointIntervalMs: number;
  importSoftDeleted: boolean;
  preset?: string;
  from?: string;
  /** Preset options (see Presets in the README). */
  systemUser?: string;
  includeBots?: boolean;
  includeJoinLeave?: boolean;
  mediaBaseUrl?: string;
}

/** The hosted service's documented limits (import-api.md "Limits"). */
export const MAX_BATCH_SIZE = 50;
export const DEFAULT_REQUESTS_PER_MINUTE = 60;

export const DEFAULTS = {
  checkpoint: '.migrate-checkpoint.json',
  rejects: 'migrate-rejects.ndjson',
  batchSize: MAX_BATCH_SIZE,
  concurrency: 4,
  requestsPerMinute: DEFAULT_REQUESTS_PER_MINUTE,
  retries: 8,
  timeoutMs: 30_000,
  checkpointIntervalMs: 200,
  importSoftDeleted: false,
} as const;

type Kind = 'string' | 'int' | 'bool' | 'rate' | 'sources';
const KEYS: Record<string, Kind> = {
  appId: 'string',
  region: 'string',
  apiKey: 'string',
  baseUrl: 'string',
  sources: 'sources',
  checkpoint: 'string',
  rejects: 'string',
  batchSize: 'int',
  concurrency: 'int',
  requestsPerMinute: 'rate',
  retries: 'int',
  timeoutMs: 'int',
  checkpointIntervalMs: 'int',
  importSoftDeleted: 'bool',
  preset: 'string',
  from: 'string',
  systemUser: 'string',
  includeBots: 'bool',
  includeJoinLeave: 'bool',
  mediaBaseUrl: 'string',
};
/** Whole-number keys for which 0 means something (no retries, a write after every batch). */
const ZERO_ALLOWED = new Set(['retries', 'checkpointIntervalMs']);
const SOURCE_KEYS = new Set(['path', 'format', 'map', 'deletion']);
const DELETION_KEYS = new Set(['softField', 'permanentField', 'permanentValue']);
const FORMATS = new Set(['csv', 'json', 'ndjson']);
/** Keys a config file may carry for editors and humans; ignored. */
const IGNORED_KEYS = new Set(['$schema', '//', 'comment']);

const fail = (where: string, key: string, message: string): never => {
  throw new ConfigError('CONFIG_INVALID', `${where}: "${key}" ${message}`);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks one layer of raw settings (a config file, the environment or flags) key by key, so that an
 * unknown key or a wrong type is reported before anything is read or sent.
 */
export function checkConfigLayer(raw: unknown, where: string): Partial<MigrateConfig> {
  if (!isPlainObject(raw)) throw new ConfigError('CONFIG_INVALID', `${where}: the configuration must be a JSON object`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (IGNORED_KEYS.has(key)) continue;
    const kind = KEYS[key];
    if (!kind) fail(where, key, `is not a known key (known: ${Object.keys(KEYS).join(', ')})`);
    // null leaves a key unset, so an example file can show every key without setting it.
    if (value === undefined || value === null) continue;
    out[key] = checkValue(where, key, kind, value);
  }
  return out as Partial<MigrateConfig>;
}

function checkValue(where: string, key: string, kind: Kind, value: unknown): unknown {
  switch (kind) {
    case 'string':
      if (typeof value !== 'string' || value === '') fail(where, key, 'must be a non-empty string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') fail(where, key, 'must be true or false');
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < (ZERO_ALLOWED.has(key) ? 0 : 1)) {
        fail(where, key, `must be a whole number${ZERO_ALLOWED.has(key) ? '' : ' of at least 1'}`);
      }
      if (key === 'batchSize' && (value as number) > MAX_BATCH_SIZE) {
        fail(where, key, `must be at most ${MAX_BATCH_SIZE} (the service's limit per request)`);
      }
      return value;
    case 'rate':
      if (value === 'auto') return value;
      if (typeof value !== 'number' || !(value > 0)) fail(where, key, 'must be a positive number or "auto"');
      return value;
    case 'sources':
      return checkSources(where, value);
  }
}

function checkSources(where: string, value: unknown): SourcesConfig {
  if (!isPlainObject(value)) fail(where, 'sources', 'must be an object with keys users, groups, members, messages');
  const out: SourcesConfig = {};
  for (const [entity, spec] of Object.entries(value as Record<string, unknown>)) {
    if (!ENTITY_ORDER.includes(entity as EntityName)) {
      fail(where, `sources.${entity}`, `is not an entity (use ${ENTITY_ORDER.join(', ')})`);
    }
    out[entity as EntityName] = checkSource(where, `sources.${entity}`, spec);
  }
  return out;
}

function checkSource(where: string, at: string, spec: unknown): SourceConfig {
  if (typeof spec === 'string' || Array.isArray(spec)) spec = { path: spec };
  if (!isPlainObject(spec)) return fail(where, at, 'must be an object like {"path": "users.csv"}');
  for (const key of Object.keys(spec)) if (!SOURCE_KEYS.has(key)) fail(where, `${at}.${key}`, 'is not a known key (known: path, format, map, deletion)');
  const { path, format, map, deletion } = spec;
  const pathOk =
    (typeof path === 'string' && path !== '') ||
    (Array.isArray(path) && path.length > 0 && path.every((p) => typeof p === 'string' && p !== ''));
  if (!pathOk) fail(where, `${at}.path`, 'must be a file, a list of files or a glob');
  if (format !== undefined && !FORMATS.has(format as string)) fail(where, `${at}.format`, 'must be one of csv, json, ndjson');
  if (map !== undefined) {
    if (!isPlainObject(map)) fail(where, `${at}.map`, 'must be an object of "target field": "source field"');
    for (const [k, v] of Object.entries(map as object)) {
      if (typeof v !== 'string' || v === '') fail(where, `${at}.map.${k}`, 'must name a source field');
    }
  }
  if (deletion !== undefined) {
    if (!isPlainObject(deletion)) fail(where, `${at}.deletion`, 'must be an object');
    for (const [k, v] of Object.entries(deletion as object)) {
      if (!DELETION_KEYS.has(k)) fail(where, `${at}.deletion.${k}`, 'is not a known key (known: softField, permanentField, permanentValue)');
      if (typeof v !== 'string') fail(where, `${at}.deletion.${k}`, 'must be a string');
    }
  }
  return spec as unknown as SourceConfig;
}
