/**
 * One plain CSV / JSON / NDJSON file looked at for `init`: its first records (through the same
 * reader import uses), the columns they have, the entity and source config guessed from them, and
 * three records mapped and checked by the same code import runs, so what init shows is what import
 * sends.
 */
import { ENTITIES } from '../../entities/index.js';
import type { EntityName, JsonObject, Problem } from '../../entities/types.js';
import { validateRecord } from '../../rules/index.js';
import { readSourceFile, resolveSourceFiles, type ResolvedFile } from '../../sources/index.js';
import { createMapper } from '../map/map.js';
import { guessEntity, guessMap, type Column, type EntityGuess, type MapGuess } from './guess-map.js';

/** Records read to learn the columns: enough for optional columns to show, never the whole file. */
const HEAD_RECORDS = 200;
const SAMPLES = 3;
export const PLAIN_FILE = /\.(csv|json|ndjson|jsonl)(\.gz)?$/i;

export interface Sample {
  line: number;
  payload: JsonObject;
  problems: Problem[];
  skip?: string;
}

export interface PlainFile {
  file: ResolvedFile;
  columns: Column[];
  records: number;
  entity: EntityGuess;
  guess?: MapGuess;
  samples: Sample[];
  /** Problems reading the file's head (a bad CSV row...), as validate would name them. */
  readProblems: string[];
  /** The records looked at, for telling a column of another file's ids (inspect-export.ts). */
  head: JsonObject[];
}

export async function resolvePlainFile(absPath: string, cwd: string): Promise<ResolvedFile> {
  const [file] = await resolveSourceFiles({ path: absPath }, cwd);
  return file;
}

export async function inspectPlainFile(
  file: ResolvedFile,
  options: { entity?: EntityName; picks: Record<string, string> },
): Promise<PlainFile> {
  const head: Array<{ value: JsonObject; line: number; ordinal: number }> = [];
  const readProblems: string[] = [];
  for await (const item of readSourceFile(file)) {
    if (item.kind === 'record') head.push({ value: item.value, line: item.line, ordinal: item.ordinal });
    else readProblems.push(`${item.file}:${item.line}: ${item.message}`);
    if (head.length >= HEAD_RECORDS || readProblems.length >= 5) break;
  }
  const columns = columnsOf(head.map((h) => h.value));
  const guessed = guessEntity(columns, file.path);
  const entity: EntityGuess =
    options.entity === undefined ? guessed : { entity: options.entity, scores: guessed.scores };
  const out: PlainFile = {
    ...{ file, columns, records: head.length, entity, samples: [], readProblems },
    head: head.map((h) => h.value),
  };
  if (entity.entity === undefined) return out;
  const guess = guessMap(entity.entity, columns, options.picks);
  out.guess = guess;
  const mapper = createMapper({
    entity: ENTITIES[entity.entity],
    map: guess.map,
    values: guess.values,
    deletion: guess.softDeleteField === undefined ? undefined : { softField: guess.softDeleteField },
  });
  const nowSec = Math.floor(Date.now() / 1000);
  for (const h of head.slice(0, SAMPLES)) {
    const mapped = mapper({ kind: 'record', file: file.display, ...h });
    const problems = [...mapped.problems, ...validateRecord(mapped, nowSec)];
    const sample: Sample = { line: h.line, payload: mapped.payload, problems };
    if (mapped.skip !== undefined) sample.skip = mapped.skip;
    out.samples.push(sample);
  }
  return out;
}

/** Top-level keys in first-seen order, and the keys inside object-valued ones (`author.id`). */
function columnsOf(records: readonly JsonObject[]): Column[] {
  const columns = new Map<string, Column>();
  const add = (name: string, value: unknown, sub: boolean) => {
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    const known = columns.get(name);
    if (known === undefined) columns.set(name, { name, isObject, sub });
    else known.isObject ||= isObject;
    return isObject;
  };
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      if (!add(key, value, false)) continue;
      for (const [inner, innerValue] of Object.entries(value as JsonObject)) add(`${key}.${inner}`, innerValue, true);
    }
  }
  return [...columns.values()];
}
