/**
 * The `sources` key's own shape: one entry per entity, each `{ path, format, map, deletion }`. Its
 * fields are described once here, for the checks and for the reference page.
 */
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import { keyProblem, type ConfigProblems } from './problems.js';
import { didYouMean, similarWords, unknownKeyText } from './suggest.js';
import type { SourceConfig, SourcesConfig } from './types.js';

/** The fields of one entity's source, in the order the reference page shows them. */
export const SOURCE_FIELDS = {
  path: 'a file, a list of files, or a glob (`export/messages-*.ndjson`); files are read in sorted order',
  format:
    '`csv`, `json` or `ndjson`; by default from the extension ' +
    '(`.csv`, `.json`, `.ndjson` / `.jsonl`, each also `.gz`)',
  map: 'renames source fields: `{"uid": "user_id", "data.text": "body"}` (target: source, dotted paths on either side)',
  deletion: 'how the export marks deleted messages (below)',
  values:
    'fixed values for API fields the export has no column for: `{"receiverType": "group", "type": "text"}`; ' +
    "a record's own value wins",
} as const;

/** The fields of `deletion`, with the value used when a field is left out (src/pipeline/map/map.ts). */
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
    values: { type: 'text' },
    deletion: { softField: 'deletedAt', permanentField: 'deleted', permanentValue: 'permanent' },
  },
} as const;

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks `sources` of one layer, adding a problem for each thing wrong with it; `where` names the layer.
 * Returns undefined when it is not an object of entities at all.
 */
export function checkSources(where: string, value: unknown, problems: ConfigProblems): SourcesConfig | undefined {
  const fail = (at: string, text: string) => problems.add(at, keyProblem(where, at, text));
  if (!isPlainObject(value)) {
    fail('sources', 'must be an object with keys users, groups, members, messages');
    return undefined;
  }
  const out: SourcesConfig = {};
  for (const [entity, spec] of Object.entries(value)) {
    if (!ENTITY_ORDER.includes(entity as EntityName)) {
      const guess = didYouMean(entity, ENTITY_ORDER);
      fail(`sources.${entity}`, `is not an entity${guess || ` (use ${ENTITY_ORDER.join(', ')})`}`);
      continue;
    }
    const source = checkSource(`sources.${entity}`, spec, fail);
    if (source !== undefined) out[entity as EntityName] = source;
  }
  return out;
}

function checkSource(at: string, spec: unknown, fail: (at: string, text: string) => void): SourceConfig | undefined {
  if (typeof spec === 'string' || Array.isArray(spec)) spec = { path: spec };
  if (!isPlainObject(spec)) {
    fail(at, 'must be an object like {"path": "users.csv"}');
    return undefined;
  }
  const unknown = Object.keys(spec).filter((key) => !Object.hasOwn(SOURCE_FIELDS, key));
  for (const key of unknown) fail(`${at}.${key}`, unknownKeyText(key, Object.keys(SOURCE_FIELDS)));
  const { path, format, map, deletion, values } = spec;
  const pathOk =
    (typeof path === 'string' && path !== '') ||
    (Array.isArray(path) && path.length > 0 && path.every((p) => typeof p === 'string' && p !== ''));
  // A misspelled "path" is reported once, as the misspelling.
  const pathMisspelled = path === undefined && unknown.some((key) => similarWords(key, ['path']).length > 0);
  if (!pathOk && !pathMisspelled) fail(`${at}.path`, 'must be a file, a list of files or a glob');
  // In any case, as every other word the config takes from a list: "CSV" is csv.
  const formatWord = typeof format === 'string' ? format.toLowerCase() : format;
  if (format !== undefined && !(SOURCE_FORMATS as readonly unknown[]).includes(formatWord)) {
    fail(`${at}.format`, `must be one of ${SOURCE_FORMATS.join(', ')}`);
  }
  if (map !== undefined) {
    if (!isPlainObject(map)) fail(`${at}.map`, 'must be an object of "target field": "source field"');
    else {
      for (const [k, v] of Object.entries(map)) {
        if (typeof v !== 'string' || v === '') fail(`${at}.map.${k}`, 'must name a source field');
      }
    }
  }
  if (deletion !== undefined) {
    if (!isPlainObject(deletion)) fail(`${at}.deletion`, 'must be an object');
    else {
      for (const [k, v] of Object.entries(deletion)) {
        if (!Object.hasOwn(DELETION_FIELDS, k)) {
          fail(`${at}.deletion.${k}`, unknownKeyText(k, Object.keys(DELETION_FIELDS)));
        } else if (typeof v !== 'string') fail(`${at}.deletion.${k}`, 'must be a string');
      }
    }
  }
  if (values !== undefined) {
    if (!isPlainObject(values)) fail(`${at}.values`, 'must be an object of "API field": value');
    else {
      for (const [k, v] of Object.entries(values)) {
        if (!['string', 'number', 'boolean'].includes(typeof v))
          fail(`${at}.values.${k}`, 'must be a string, number or boolean');
      }
    }
  }
  return (formatWord === format ? spec : { ...spec, format: formatWord }) as unknown as SourceConfig;
}
