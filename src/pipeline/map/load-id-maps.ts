import { appendFile, rename, writeFile } from 'node:fs/promises';
import { STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import { ENTITIES } from '../../entities/index.js';
import type { IdMaps, JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import { serviceIdOf, type IdRule } from '../../presets/shared/ids.js';
import { readSourceFile, resolveSourceFiles } from '../../sources/index.js';
import type { EntityPlan } from '../../sources/plan.js';
import { createMapper, mapperOptionsFor } from './map.js';

/** One pair of the map files as used: the export's id and the app's. */
export interface MappedId {
  entity: 'users' | 'groups';
  sourceId: string;
  id: string;
}

export interface LoadedIdMaps {
  ids: IdMaps;
  used: MappedId[];
  /** E-mails of the user map that no user of the export has. */
  unmatchedEmails: string[];
}

interface Pair {
  from: string;
  to: string;
  file: string;
  line: number;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A map file's pairs, read by the one read layer (CSV `from,to`; JSON array or NDJSON of `{from, to}`). */
async function readPairs(pathOfMap: string, baseDir: string, key: 'userMap' | 'groupMap'): Promise<Pair[]> {
  const [file] = await resolveSourceFiles({ path: pathOfMap }, baseDir);
  const pairs: Pair[] = [];
  const seen = new Map<string, Pair>();
  for await (const item of readSourceFile(file)) {
    if (item.kind === 'problem') {
      if (item.rule === 'input.empty-file') continue;
      throw new InputError('IDMAP_INPUT_INVALID', `${key}: ${item.message}`, {
        location: { file: item.file, line: item.line },
      });
    }
    const v: JsonObject = item.value;
    const from = text(v.from);
    const to = text(v.to);
    if (from === undefined || to === undefined) {
      throw new InputError('IDMAP_INPUT_INVALID', `${key}: each entry needs "from" and "to"`, {
        location: { file: item.file, line: item.line, field: from === undefined ? 'from' : 'to' },
      });
    }
    const pair = { from, to, file: item.file, line: item.line };
    const earlier = seen.get(from.toLowerCase());
    if (earlier !== undefined && earlier.to !== to) {
      throw new InputError('IDMAP_INPUT_INVALID', `${key}: ${from} is mapped twice (also at line ${earlier.line})`, {
        location: { file: item.file, line: item.line, field: 'from' },
      });
    }
    seen.set(from.toLowerCase(), pair);
    pairs.push(pair);
  }
  return pairs;
}

/** Both spellings of a source id: as given, and as a preset turns it into an id under the run's rule. */
function addId(map: Map<string, string>, from: string, to: string, rule: IdRule): void {
  map.set(from.toLowerCase(), to);
  map.set(serviceIdOf(rule, from).toLowerCase(), to);
}

/**
 * Reads `userMap` and `groupMap`. A user map's e-mails are matched against the export's users (a
 * preset's `email`, or a plain source's `email` field), read once here through the plan's inputs.
 */
export async function loadIdMaps(
  config: { userMap?: string; groupMap?: string; importSoftDeleted: boolean; idRule: string },
  plans: readonly EntityPlan[],
  baseDir: string,
): Promise<LoadedIdMaps> {
  const result: LoadedIdMaps = { ids: {}, used: [], unmatchedEmails: [] };
  if (config.groupMap !== undefined) {
    const groups = new Map<string, string>();
    for (const { from, to } of await readPairs(config.groupMap, baseDir, 'groupMap')) {
      addId(groups, from, to, config.idRule as IdRule);
      result.used.push({ entity: 'groups', sourceId: from, id: to });
    }
    result.ids.groups = groups;
  }
  if (config.userMap === undefined) return result;
  const users = new Map<string, string>();
  const byEmail = new Map<string, string>();
  for (const { from, to } of await readPairs(config.userMap, baseDir, 'userMap')) {
    if (from.includes('@')) byEmail.set(from.toLowerCase(), to);
    else {
      addId(users, from, to, config.idRule as IdRule);
      result.used.push({ entity: 'users', sourceId: from, id: to });
    }
  }
  const plan = plans.find((p) => p.entity.name === 'users');
  if (byEmail.size > 0 && plan !== undefined) {
    const matched = new Set<string>();
    const mapper = createMapper(mapperOptionsFor(ENTITIES.users, plan.source, config));
    for (const input of plan.inputs) {
      for await (const item of input.read({ entity: 'users' })) {
        if (item.kind !== 'record') continue;
        const email = text(item.email) ?? text(item.value.email);
        const to = email === undefined ? undefined : byEmail.get(email.toLowerCase());
        if (to === undefined) continue;
        const uid = mapper(item).id;
        if (uid === '') continue;
        matched.add(email!.toLowerCase());
        users.set(uid.toLowerCase(), to);
        result.used.push({ entity: 'users', sourceId: uid, id: to });
      }
    }
    result.unmatchedEmails = [...byEmail.keys()].filter((e) => !matched.has(e));
  }
  result.ids.users = users;
  return result;
}

/**
 * Records the mapping used in the id map beside the checkpoint (`{entity, sourceId, id, mapped}`
 * lines): after a preset's lines when it wrote the file, else as the whole file.
 */
export async function recordMappedIds(file: string, used: readonly MappedId[], append: boolean): Promise<void> {
  const lines = used.map((u) => `${JSON.stringify({ ...u, mapped: true })}\n`).join('');
  if (append) {
    await appendFile(file, lines, { mode: STATE_FILE_MODE });
    return;
  }
  const temp = `${file}.tmp-${process.pid}`;
  await writeFile(temp, lines, { mode: STATE_FILE_MODE });
  await rename(temp, file);
}
