/**
 * A `userMap` / `groupMap` file: pairs of the export's id and the app's, read by the one read layer.
 * Three forms are taken, the two a tool writes and the one a person writes by hand; anything else
 * stops the run naming the file, the line and these forms, before a record is sent.
 */
import type { JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import { readSourceFile, resolveSourceFiles } from '../../sources/index.js';

/** One pair of a map file, with where it was written. */
export interface Pair {
  from: string;
  to: string;
  file: string;
  line: number;
}

export type MapKey = 'userMap' | 'groupMap';

/** The forms a map file may take, as every shape error names them. */
export const MAP_FORMS =
  'a map is a CSV with the header from,to and one pair a line; a JSON array or NDJSON of ' +
  '{"from": "<export id>", "to": "<app id>"}; or one JSON object {"<export id>": "<app id>", ...}';

/** An id as a map may spell it: non-empty text, or a number written without quotes (`{"old": 42}`). */
const text = (v: unknown): string | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

/**
 * A record's pair: `from` and `to`, or a JSON object's member (`"old-id": "app-uid"`, read as a
 * record `{value}` keyed by its name; `"old-id": {"to": ...}` too).
 */
function pairOf(value: JsonObject, key: string | undefined): { from?: string; to?: string } {
  if (key !== undefined) return { from: text(value.from) ?? text(key), to: text(value.to) ?? text(value.value) };
  return { from: text(value.from), to: text(value.to) };
}

/** What is wrong with a record that is not a pair, in the map's own terms. */
function shapeProblem(value: JsonObject, key: string | undefined, pair: { from?: string; to?: string }): string {
  const fields = Object.keys(value);
  if (key !== undefined && fields.length === 1 && fields[0] === 'value')
    return `the value of "${key}" is ${JSON.stringify(value.value)}, not an app id`;
  if (key !== undefined) return `the value of "${key}" has no "to"`;
  if (!fields.includes('from') && !fields.includes('to'))
    return `an entry with ${fields.map((f) => `"${f}"`).join(', ') || 'no fields'}, not "from" and "to"`;
  return `an entry without ${pair.from === undefined ? '"from"' : '"to"'}`;
}

/** A map file's pairs, in file order; the same id mapped twice to different ids is an error. */
export async function readMapPairs(pathOfMap: string, baseDir: string, key: MapKey): Promise<Pair[]> {
  const [file] = await resolveSourceFiles({ path: pathOfMap }, baseDir);
  const pairs: Pair[] = [];
  const seen = new Map<string, Pair>();
  const fail = (message: string, at: { file: string; line: number; field?: string }, hint?: string) =>
    new InputError('IDMAP_INPUT_INVALID', `${key}: ${message}`, { location: at, hint });
  for await (const item of readSourceFile(file, { keyedScalars: true })) {
    if (item.kind === 'problem') {
      if (item.rule === 'input.empty-file') continue;
      throw fail(item.message, { file: item.file, line: item.line }, MAP_FORMS);
    }
    const pair = pairOf(item.value, item.key);
    if (pair.from === undefined || pair.to === undefined) {
      const field = pair.from === undefined ? 'from' : 'to';
      const at = { file: item.file, line: item.line, field };
      throw fail(`not a pair of ids: ${shapeProblem(item.value, item.key, pair)}`, at, MAP_FORMS);
    }
    const entry = { from: pair.from, to: pair.to, file: item.file, line: item.line };
    const earlier = seen.get(entry.from.toLowerCase());
    if (earlier !== undefined && earlier.to !== entry.to) {
      const at = { file: item.file, line: item.line, field: 'from' };
      throw fail(`${entry.from} is mapped twice (also at line ${earlier.line})`, at);
    }
    seen.set(entry.from.toLowerCase(), entry);
    pairs.push(entry);
  }
  return pairs;
}
