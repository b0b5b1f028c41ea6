/**
 * The `sources` key's own shape: one entry per entity, each `{ path, format, map, deletion }`. Its
 * fields are described once here, for the checks and for the reference page.
 */
import { ConfigError } from '../errors.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import type { SourceConfig, SourcesConfig } from './types.js';

/** The fields of one entity's source, in the order the reference page shows them. */
export const SOURCE_FIELDS = {
  path: 'a file, a list of files, or a glob (`export/messages-*.ndjson`); files are read in sorted order',
  format:
    '`csv`, `json` or `ndjson`; by default from the extension ' +
    '(`.csv`, `.json`, `.ndjson` / `.jsonl`, each also `.gz`)',
  map: 'renames source fields: `{"uid": "user_id", "data.text": "body"}` (target: source, dotted paths on either side)',
  deletion: 'how the export marks deleted messages (below)',
} as const;

/** The fields of `deletion`, with the value used when a field is left out (pipeline/map.ts). */
export const DELETION_FIELDS = {
  softField: { default: 'deletedAt', help: 'a field holding a deletion time: the message is soft-deleted' },
  permanentField: { default: 'deleted', help: 'a field whose value is `permanentValue`: permanently deleted' },
  permanentValue: { default: 'permanent', help: 'the value of `permanentField` that means permanently deleted' },
} as const;

export const SOURCE_FORMATS = ['csv', 'json', 'ndjson'] as const;

/** What `.migrate.config.example.json` shows for `sources`: every form a source can take. */
export const EXAMPLE_SOURCES = {
  users: { path: 'export/users.csv', map: { uid: 'user_id', name: 'display_name' } },
  groups: { path: 'export/groups.json' },
  members: { path: 'export/members-*.ndjson.gz', format: 'ndjson' },
  messages: {
    path: ['export/messages/*.ndjson', 'export/archive.csv'],
    map: { muid: 'id', 'data.text': 'body' },
    deletion: { softField: 'deletedAt', permanentField: 'deleted', permanentValue: 'permanent' },
  },
} as const;

const fail = (where: string, key: string, message: string): never => {
  throw new ConfigError('CONFIG_INVALID', `${where}: "${key}" ${message}`);
};

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const known = (fields: object) => `is not a known key (known: ${Object.keys(fields).join(', ')})`;

/** Checks `sources` of one layer; `where` names the layer in messages. */
export function checkSources(where: string, value: unknown): SourcesConfig {
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
  for (const key of Object.keys(spec)) {
    if (!Object.hasOwn(SOURCE_FIELDS, key)) fail(where, `${at}.${key}`, known(SOURCE_FIELDS));
  }
  const { path, format, map, deletion } = spec;
  const pathOk =
    (typeof path === 'string' && path !== '') ||
    (Array.isArray(path) && path.length > 0 && path.every((p) => typeof p === 'string' && p !== ''));
  if (!pathOk) fail(where, `${at}.path`, 'must be a file, a list of files or a glob');
  if (format !== undefined && !(SOURCE_FORMATS as readonly unknown[]).includes(format)) {
    fail(where, `${at}.format`, `must be one of ${SOURCE_FORMATS.join(', ')}`);
  }
  if (map !== undefined) {
    if (!isPlainObject(map)) fail(where, `${at}.map`, 'must be an object of "target field": "source field"');
    for (const [k, v] of Object.entries(map as object)) {
      if (typeof v !== 'string' || v === '') fail(where, `${at}.map.${k}`, 'must name a source field');
    }
  }
  if (deletion !== undefined) {
    if (!isPlainObject(deletion)) fail(where, `${at}.deletion`, 'must be an object');
    for (const [k, v] of Object.entries(deletion as object)) {
      if (!Object.hasOwn(DELETION_FIELDS, k)) fail(where, `${at}.deletion.${k}`, known(DELETION_FIELDS));
      if (typeof v !== 'string') fail(where, `${at}.deletion.${k}`, 'must be a string');
    }
  }
  return spec as unknown as SourceConfig;
}
