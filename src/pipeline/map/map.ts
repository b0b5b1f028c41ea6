/**
 * The map stage: a SourceRecord as the export has it -> a MappedRecord in the API's field names.
 * It runs once per record on a million-record path, so everything that depends only on the
 * options is worked out in createMapper, and a record only pays for the fields it has.
 * The source record is never modified: it goes to the rejects file as it was read. Nested objects
 * of the source are shared with the payload until a step has to change one; then that one object
 * (and its parents) is copied first.
 */
import { deletePath, getPath, isPlainObject, setPath } from './object-paths.js';
import { isNeverTime, toUnixSeconds } from '../../entities/timestamps.js';
import { conflict, dropTransient, fillIdFromKey, isDeletionMark, neverProblem, parseJsonText } from './map-steps.js';
import {
  ALL_STEPS,
  BOOLEAN,
  NUMERIC_ID,
  STRUCTURED,
  TIMESTAMP,
  fieldKinds,
  isUnixSeconds,
  stepsFor,
} from './field-work.js';
import type { EntityDef } from '../../entities/index.js';
import {
  BEYOND_RETENTION,
  NO_PROBLEMS,
  type JsonObject,
  type MappedRecord,
  type Problem,
  type IdMaps,
  type SourceRecord,
} from '../../entities/types.js';
import type { DeletionMarkers } from '../../config/types.js';
import { MAPPED, rewriteIds } from './id-maps.js';
import { isBeyondRetention } from '../retention.js';

export interface MapperOptions {
  entity: EntityDef;
  /** target (API field, dotted) -> source field (dotted); the value moves. */
  map?: Record<string, string>;
  deletion?: Partial<DeletionMarkers>;
  /** target (API field, dotted) -> the value a record takes when it has none there. */
  values?: Record<string, string | number | boolean>;
  /** Import soft-deleted messages, their deletion time kept at `data.metadata.deletedAt`. */
  importSoftDeleted?: boolean;
  /** Skip messages sent before this UNIX second. */
  sinceSec?: number;
  /** Skip messages sent before this UNIX second as beyond the service's retention (pipeline/retention.ts). */
  retentionCutoffSec?: number;
  /** `userMap` / `groupMap`: references rewritten to the app's ids; mapped users and groups skipped. */
  ids?: IdMaps;
}

/**
 * What every run gives createMapper: the entity, its source's map and deletion markers, the run's
 * soft-delete, since and retention settings.
 */
export function mapperOptionsFor(
  entity: EntityDef,
  source: Pick<MapperOptions, 'map' | 'deletion' | 'values' | 'ids'>,
  run: Pick<MapperOptions, 'importSoftDeleted' | 'sinceSec' | 'retentionCutoffSec'>,
): MapperOptions {
  return {
    entity,
    map: source.map,
    deletion: source.deletion,
    values: source.values,
    ids: source.ids,
    importSoftDeleted: run.importSoftDeleted,
    sinceSec: run.sinceSec,
    retentionCutoffSec: run.retentionCutoffSec,
  };
}

const DELETED_AT_PATH = ['data', 'metadata', 'deletedAt'];

/** A `map` entry: move the value at `source` to `target`. */
interface Rename {
  target: string[];
  source: string[];
}

/** One mapper per source file: unknown fields are reported once per mapper. */
export function createMapper(options: MapperOptions): (item: SourceRecord) => MappedRecord {
  const entity = options.entity;
  const ids = options.ids;
  const idField = entity.idField;
  // Only the entity's own id fields: looking up absent names walks the prototype chain per record.
  const idFields = entity.idFields;
  // The contract's fields, each with the steps that may apply to it.
  const kindsOf = fieldKinds(entity.fields, { ...entity, idFields });
  const renames: Rename[] = Object.entries(options.map ?? {})
    .filter(([target, source]) => target !== source)
    .map(([target, source]) => ({ target: target.split('.'), source: source.split('.') }));
  const fixedValues = Object.entries(options.values ?? {}).map(([target, value]) => ({
    target: target.split('.'),
    value,
  }));
  const nestedStructured = entity.nestedStructuredFields.map((path) => path.split('.'));
  // All nested paths of an entity share one head (messages: data); undefined when there are none.
  const nestedHead = nestedStructured[0]?.[0];
  const isMessages = entity.name === 'messages';
  const softPath = (options.deletion?.softField ?? 'deletedAt').split('.');
  const permanentPath = (options.deletion?.permanentField ?? 'deleted').split('.');
  const permanentValue = options.deletion?.permanentValue ?? 'permanent';
  const softIsTimestampField = softPath.length === 1 && entity.timestampFields.includes(softPath[0]);
  const importSoftDeleted = options.importSoftDeleted === true;
  const sinceSec = options.sinceSec;
  const retentionCutoffSec = options.retentionCutoffSec;
  // A required time's "never" stays for validation to refuse; the deletion marker's is read by step (h) as before.
  const keepsNever = new Set([...(isMessages ? ['sentAt'] : []), ...(softIsTimestampField ? [softPath[0]] : [])]);

  // Top-level names kept through the first copy though not in the contract, because a later step
  // reads them (a rename's source, a deletion marker); dropped once that step is done.
  const markerHeads = isMessages ? [softPath[0], permanentPath[0]] : [];
  const transientHeads = new Set(
    [...renames.flatMap((r) => [r.source[0], r.target[0]]), ...markerHeads].filter((h) => !kindsOf.has(h)),
  );
  const silentHeads = new Set(markerHeads);
  const warned = new Set<string>();
  // CSV headers such as "data.text" repeat on every row: split once per mapper.
  const dottedPaths = new Map<string, string[]>();
  // Reused by every record (the mapper is synchronous): no per-record allocations for bookkeeping.
  const fresh = new Set<object>();
  const moved: unknown[] = new Array<unknown>(renames.length);
  const scratchProblems: Problem[] = [];
  const scratchDotted: string[] = [];

  const warnUnknown = (field: string, problems: Problem[]): void => {
    if (warned.has(field)) return;
    warned.add(field);
    problems.push({
      rule: 'field.unknown',
      severity: 'warning',
      field,
      message:
        `"${field}" is not a ${entity.singular} field of the import API; it is not sent ` +
        '(map it with "map" in the source config, or ignore this)',
    });
  };

  // Copy-on-write: a record holding only contract fields is used as it is, and copied at the first
  // write. Most NDJSON/JSON records need none, which saves a copy (and its garbage) per record.
  let shared: JsonObject | undefined;
  const own = (payload: JsonObject): JsonObject => {
    if (payload !== shared) return payload;
    shared = undefined;
    const copy = { ...payload };
    fresh.add(copy);
    return copy;
  };

  return (item: SourceRecord): MappedRecord => {
    const source = item.value;
    const problems = scratchProblems;
    problems.length = 0;
    if (fresh.size > 0) fresh.clear();
    let allKnown = renames.length === 0;
    let steps = 0;
    if (allKnown) {
      for (const key in source) {
        const kinds = kindsOf.get(key);
        if (kinds === undefined) {
          allKnown = false;
          break;
        }
        if (kinds !== 0) steps |= stepsFor(kinds, source[key]);
      }
    }
    let payload: JsonObject = allKnown ? source : {};
    shared = allKnown ? source : undefined;
    if (!allKnown) fresh.add(payload);

    // (a) copy known fields, expand dotted ones (CSV "data.text"), note the rest as unknown
    let dotted: string[] | undefined;
    scratchDotted.length = 0;
    let sawTransient = renames.length > 0;
    if (!allKnown) {
      // The scan above stopped at the first unknown key: the keys after it add their steps here
      // (ORing a kind in again changes nothing), and dotted fields and transient heads add theirs below.
      for (const key in source) {
        const kinds = kindsOf.get(key);
        if (kinds !== undefined) {
          const value = source[key];
          payload[key] = value;
          if (kinds !== 0) steps |= stepsFor(kinds, value);
        } else if (transientHeads.has(key)) {
          payload[key] = source[key];
          sawTransient = true;
        } else if (key.indexOf('.') > 0) (dotted ??= scratchDotted).push(key);
        else warnUnknown(key, problems);
      }
    }
    if (dotted !== undefined) {
      for (const key of dotted) {
        let path = dottedPaths.get(key);
        if (path === undefined) dottedPaths.set(key, (path = key.split('.')));
        const kinds = kindsOf.get(path[0]);
        if (kinds === undefined && !transientHeads.has(path[0])) warnUnknown(key, problems);
        else if (!setPath(payload, path, source[key], fresh)) conflict(key, problems);
        else if (kinds === undefined) sawTransient = true;
        else if (kinds !== 0) steps |= stepsFor(kinds, payload[path[0]]);
      }
    }
    // A rename may move any value anywhere, and a transient head (a deletion marker such as
    // deletedAt) may itself be a timestamp field: every step then looks.
    if (sawTransient) steps = ALL_STEPS;

    // (b) renames: read every source before writing any target, so swaps work
    if (renames.length > 0) {
      for (let i = 0; i < renames.length; i++) moved[i] = getPath(payload, renames[i].source);
      for (let i = 0; i < renames.length; i++) deletePath(payload, renames[i].source, fresh, transientHeads);
      for (let i = 0; i < renames.length; i++) {
        if (moved[i] !== undefined && !setPath(payload, renames[i].target, moved[i], fresh)) {
          conflict(renames[i].target.join('.'), problems);
        }
      }
    }

    // (b2) fixed values for fields the export has no column for; the record's own value wins
    for (const fixed of fixedValues) {
      if (
        getPath(payload, fixed.target) === undefined &&
        !setPath((payload = own(payload)), fixed.target, fixed.value, fresh)
      )
        conflict(fixed.target.join('.'), problems);
    }

    // (c) structured fields that arrive as JSON text (CSV cells)
    if (steps & STRUCTURED)
      for (const field of entity.structuredFields) {
        const value = payload[field];
        if (typeof value === 'string') (payload = own(payload))[field] = parseJsonText(value, field, problems);
      }
    // Nested JSON text only comes from CSV cells: look one level down directly, walk deeper paths only when there.
    const nestedParent = nestedHead === undefined ? undefined : payload[nestedHead];
    if (isPlainObject(nestedParent)) {
      for (const path of nestedStructured) {
        const value = path.length === 2 ? nestedParent[path[1]] : getPath(payload, path);
        if (typeof value === 'string')
          setPath((payload = own(payload)), path, parseJsonText(value, path.join('.'), problems), fresh);
      }
    }

    // (d) booleans that arrive as text
    if (steps & BOOLEAN)
      for (const field of entity.booleanFields) {
        const value = payload[field];
        if (typeof value !== 'string') continue;
        const text = value.trim().toLowerCase();
        if (text === 'true' || text === '1') (payload = own(payload))[field] = true;
        else if (text === 'false' || text === '0') (payload = own(payload))[field] = false;
      }

    // (e) timestamps to integer UNIX seconds; an optional field's "never" is left out with a warning
    if (steps & TIMESTAMP)
      for (const field of entity.timestampFields) {
        const value = payload[field];
        if (isUnixSeconds(value)) continue;
        const seconds = toUnixSeconds(value);
        if (seconds === undefined) {
          const message = `${field} is not a timestamp: ${JSON.stringify(value)}`;
          problems.push({ rule: 'timestamp.invalid', severity: 'error', field, message });
        } else if (!isNeverTime(seconds) || keepsNever.has(field)) (payload = own(payload))[field] = seconds;
        else {
          delete (payload = own(payload))[field];
          problems.push(neverProblem(field, value));
        }
      }

    // (f) ids: an id-keyed JSON record may hold its id only in the key; JSON exports often hold numeric
    // ids (Telegram, Discord snowflakes), which the service takes as strings
    if (item.key !== undefined) fillIdFromKey((payload = own(payload)), idField, item.key, problems);
    if (steps & NUMERIC_ID)
      for (const field of idFields)
        if (typeof payload[field] === 'number') (payload = own(payload))[field] = String(payload[field]);
    // An export's own memberId is kept, so validation can tell when it disagrees with guid and uid.
    if (idField === 'memberId' && (payload.memberId === undefined || payload.memberId === null)) {
      (payload = own(payload)).memberId = entity.idOf(payload);
    }

    // (h) deletion markers and --since, messages only
    let skip: MappedRecord['skip'];
    if (isMessages) {
      const permanent = getPath(payload, permanentPath);
      const soft = getPath(payload, softPath);
      if (permanent !== undefined) deletePath((payload = own(payload)), permanentPath, fresh, transientHeads);
      if (soft !== undefined) deletePath((payload = own(payload)), softPath, fresh, transientHeads);
      if (permanent !== undefined && permanent !== null && String(permanent) === permanentValue) {
        skip = 'permanently-deleted';
      } else if (isDeletionMark(soft)) {
        if (!importSoftDeleted) skip = 'soft-deleted';
        else {
          const seconds = toUnixSeconds(soft);
          if (seconds !== undefined) {
            if (!setPath((payload = own(payload)), DELETED_AT_PATH, seconds, fresh))
              conflict('data.metadata.deletedAt', problems);
          } else if (!softIsTimestampField) {
            problems.push({
              rule: 'timestamp.invalid',
              severity: 'error',
              field: softPath.join('.'),
              message: `deletion time is not a timestamp: ${JSON.stringify(soft)}`,
            });
          }
        }
      }
      if (
        skip === undefined &&
        sinceSec !== undefined &&
        typeof payload.sentAt === 'number' &&
        payload.sentAt < sinceSec
      ) {
        skip = 'before-since';
      }
      // --since and the preset's own reason first: a message left out on purpose (a join notice, a bot's post)
      // is counted as that, not as too old, so import's counts agree with verify's.
      if (skip === undefined && item.skip === undefined && isBeyondRetention(payload.sentAt, retentionCutoffSec)) {
        skip = BEYOND_RETENTION;
      }
    }

    // (g) drop what was only kept for the steps above; warn if something is left in it
    if (sawTransient) {
      payload = dropTransient(payload, transientHeads, silentHeads, problems, warnUnknown);
    }

    // (h) references to users and groups the app already has, under the app's ids
    if (ids !== undefined) {
      const rewritten = rewriteIds(entity.name, payload, ids);
      if (rewritten === MAPPED) skip ??= MAPPED;
      else payload = rewritten;
    }

    const mapped: MappedRecord = {
      entity: entity.name,
      payload,
      id: entity.idOf(payload),
      source,
      file: item.file,
      line: item.line,
      ordinal: item.ordinal,
      // Most records have none: they share one frozen empty list instead of an array each.
      problems: problems.length === 0 ? NO_PROBLEMS : problems.splice(0),
    };
    if (skip === undefined && item.skip !== undefined) skip = item.skip;
    if (skip !== undefined) mapped.skip = skip;
    return mapped;
  };
}
