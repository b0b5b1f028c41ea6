import { ENTITIES } from '../entities/index.js';
import type { EntityName, JsonObject } from '../entities/types.js';
import { isPlainObject } from './field-checks.js';
import { SerialisedJson } from './http-io.js';
import { recordKeysInBodyOrder } from './body-order.js';
import { innerObjectEntries, keysAreUnique } from '../json/object-entries.js';
import { checkRecord } from './record-rules.js';
import type { RecordStore } from './record-store.js';
import type { StatsCollector } from './sandbox-stats.js';

/** A whole-request refusal: status and the `{"error": ...}` body's code and message. */
export interface RequestRefusal {
  status: number;
  code: string;
  message: string;
}

export type ParsedBody = { ok: true; records: [string, unknown][] } | ({ ok: false } & RequestRefusal);

const ARRAY_INDEX = /^(0|[1-9]\d{0,9})$/;
const isArrayIndexLike = (key: string): boolean => ARRAY_INDEX.test(key) && Number(key) < 4294967295;

/** Reads `{"<entity>": {"<key>": record, ...}}`, refusing the whole request when the shape is wrong. */
export function parseImportBody(
  entity: EntityName,
  raw: Buffer,
  maxRecords: number,
  stats: StatsCollector,
): ParsedBody {
  const text = raw.toString('utf8');
  let records = splitRecords(text, entity);
  if (records === undefined) {
    const whole = parseWhole(text, entity);
    if (!whole.ok) return whole;
    records = whole.records;
  }
  stats.bodyRead(entity, records.length, records.length <= maxRecords);
  if (records.length === 0) {
    return { ok: false, status: 400, code: 'ERR_BAD_REQUEST', message: `no ${entity} in the body` };
  }
  if (records.length > maxRecords) {
    return {
      ok: false,
      status: 400,
      code: 'ERR_IMPORT_LIMIT_EXCEEDED',
      message: `at most ${maxRecords} records per request; got ${records.length}`,
    };
  }
  return { ok: true, records };
}

/**
 * The records of a plain `{"<entity>": {...}}` body, each value parsed on its own (json/object-entries.ts
 * says why) and in body order; undefined for anything else (duplicate keys, other members, other
 * shapes), which `parseWhole` reads.
 */
function splitRecords(text: string, entity: EntityName): [string, unknown][] | undefined {
  const entries = innerObjectEntries(text, entity);
  if (entries === undefined || !keysAreUnique(entries)) return undefined;
  try {
    return entries.map((entry) => [entry.key, JSON.parse(text.slice(entry.start, entry.end)) as unknown]);
  } catch {
    return undefined;
  }
}

/** The whole body through JSON.parse: what the service does, and the reference for `splitRecords`. */
function parseWhole(
  text: string,
  entity: EntityName,
): { ok: true; records: [string, unknown][] } | ({ ok: false } & RequestRefusal) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, code: 'ERR_BAD_REQUEST', message: 'the body is not valid JSON' };
  }
  const map = isPlainObject(body) ? body[entity] : undefined;
  if (!isPlainObject(map)) {
    return {
      ok: false,
      status: 400,
      code: 'ERR_BAD_REQUEST',
      message: `the body must be {"${entity}": {"<id>": {...}}}`,
    };
  }
  // JS objects list integer-like keys first, whatever the body said; only then is the body's own order
  // recovered by scanning the text (a numeric muid such as "3117" would otherwise jump the queue).
  // Those keys come first, so looking at the first one is enough.
  const keys = Object.keys(map);
  const ordered = keys.length > 0 && isArrayIndexLike(keys[0]) ? recordKeysInBodyOrder(text, entity) : undefined;
  const records: [string, unknown][] =
    ordered && ordered.length === keys.length
      ? ordered.map((key) => [key, map[key]])
      : keys.map((key) => [key, map[key]]);
  return { ok: true, records };
}

export interface ProcessContext {
  store: RecordStore;
  stats: StatsCollector;
  nowSeconds: number;
  responseStyle: 'flat' | 'nested';
  isPoison(key: string): boolean;
  /** Set: a message sent before this UNIX second fails the request (refuseBeyondRetention), after `days`. */
  refuseOld?: { beforeSec: number; days: number };
  /** True when the record (lower-cased id) is to be answered success and not stored. */
  isLost(entity: EntityName, id: string): boolean;
}

export interface ProcessOutcome {
  /** The 200 body, ready to send. */
  body: SerialisedJson;
  /** True when a poison record stopped the request: answer 500 instead of `body`. */
  poisoned: boolean;
  /** The 500's message, when the record that stopped it has a reason of its own (an old message). */
  failure?: string;
}

/** A message record whose sentAt (UNIX seconds) lies before `beforeSec`. */
function isOlderThan(value: unknown, beforeSec: number): boolean {
  const sentAt = typeof value === 'object' && value !== null ? (value as JsonObject).sentAt : undefined;
  return typeof sentAt === 'number' && sentAt < beforeSec;
}

/**
 * Stores the valid records one by one in body order, as the service does; that order is what makes
 * a 500 mid-request leave the records before the failure stored.
 */
export function processRecords(entity: EntityName, records: [string, unknown][], ctx: ProcessContext): ProcessOutcome {
  const nested = ctx.responseStyle === 'nested';
  const byMessageId = nested && entity === 'messages';
  const sentKeys = byMessageId ? new Set(records.map(([key]) => key)) : undefined;
  // Null prototype: `__proto__` is a valid id and must come back as an ordinary key. Flat answers are written as text.
  const results: JsonObject = nested ? Object.create(null) : {};
  let flat = '{"data":{';
  const keepRecords = ctx.store.keepsRecords;
  const rules = {
    nowSeconds: ctx.nowSeconds,
    groupCreatedAt: (guid: string) => ctx.store.groupCreatedAt(guid),
    keepRecords,
  };

  for (const [key, value] of records) {
    if (ctx.isPoison(key)) {
      ctx.stats.fault('poison');
      return { body: new SerialisedJson('{}'), poisoned: true };
    }
    if (ctx.refuseOld !== undefined && entity === 'messages' && isOlderThan(value, ctx.refuseOld.beforeSec)) {
      // The vendor's guides: one such message fails the whole request after the rows before it were stored.
      ctx.stats.fault('beyondRetention');
      const failure = `Messages older than ${ctx.refuseOld.days} days cannot be imported`;
      return { body: new SerialisedJson('{}'), poisoned: true, failure };
    }
    const outcome = checkRecord(entity, key, value, rules);
    let result: JsonObject;
    if (!outcome.ok) {
      ctx.stats.record(entity, 'rejected');
      result = { success: false, error: { code: outcome.code, message: outcome.message } };
    } else if (ctx.store.has(entity, outcome.id)) {
      ctx.stats.record(entity, 'alreadyExists');
      const code = ENTITIES[entity].alreadyExistsCodes[0];
      result = {
        success: false,
        error: { code, message: `${ENTITIES[entity].singular} ${outcome.id} already exists` },
      };
    } else {
      if (entity === 'messages') {
        let id = ctx.store.issueMessageId();
        // Results keyed by the new id must not meet a muid of this request or a key given before.
        if (byMessageId) while (sentKeys!.has(id) || id in results) id = ctx.store.issueMessageId();
        // The stored object itself (or the same object, when only ids are kept) gets the id.
        outcome.entity.id = id;
        outcome.answer.id = id;
      }
      // The lost-records fault answers success without storing (once per record).
      if (ctx.isLost(entity, outcome.id)) ctx.stats.record(entity, 'lost');
      else {
        ctx.store.add(entity, outcome.id, outcome.entity);
        ctx.stats.record(entity, 'stored');
      }
      result = { success: true, data: outcome.answer };
    }
    if (!nested) {
      // Written as text at once: a null-prototype object with 50 fresh keys cost more than its JSON.
      flat += `${flat.length > 9 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(result)}`;
      continue;
    }
    if (!byMessageId) {
      results[key] = result;
      continue;
    }
    // Vendor examples key message results by the new message id; failures have none, so they keep
    // the muid as key and carry it beside the error for the client to match on.
    if (result.success) {
      results[(result.data as JsonObject).id as string] = result;
    } else {
      results[key] = { ...result, muid: key };
    }
  }
  return {
    body: new SerialisedJson(nested ? JSON.stringify({ data: { data: results } }) : `${flat}}}`),
    poisoned: false,
  };
}
