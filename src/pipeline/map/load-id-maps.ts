import { appendFile, rename, writeFile } from 'node:fs/promises';
import { STATE_FILE_MODE } from '../../checkpoint/state-files.js';
import { ENTITIES } from '../../entities/index.js';
import type { IdMaps } from '../../entities/types.js';
import { serviceIdOf, type IdRule } from '../../systems/shared/ids.js';
import type { EntityPlan } from '../../sources/plan.js';
import { readMapPairs } from './id-map-file.js';
import { createMapper, mapperOptionsFor } from './map.js';
import { emailOf, emailPlaces } from './user-email.js';

/** One pair of the map files as used: the export's id and the app's. */
export interface MappedId {
  entity: 'users' | 'groups';
  sourceId: string;
  id: string;
}

export interface LoadedIdMaps {
  ids: IdMaps;
  used: MappedId[];
  /** What the user map's e-mail lines found worth saying: e-mails no user has, and where they were looked for. */
  emailWarnings: string[];
}

/** Both spellings of a source id: as given, and as a preset turns it into an id under the run's rule. */
function addId(map: Map<string, string>, from: string, to: string, rule: IdRule): void {
  map.set(from.toLowerCase(), to);
  map.set(serviceIdOf(rule, from).toLowerCase(), to);
}

/**
 * Reads `userMap` and `groupMap`. A user map's e-mails are matched against the e-mails of the
 * export's users, read once here through the plan's inputs and mapped as import maps them: the
 * e-mail is where the users source's mapping puts it, or where `userEmailField` says (user-email.ts).
 */
export async function loadIdMaps(
  config: {
    userMap?: string;
    groupMap?: string;
    userEmailField?: string;
    preset?: string;
    importSoftDeleted: boolean;
    idRule: string;
  },
  plans: readonly EntityPlan[],
  baseDir: string,
): Promise<LoadedIdMaps> {
  const result: LoadedIdMaps = { ids: {}, used: [], emailWarnings: [] };
  if (config.groupMap !== undefined) {
    const groups = new Map<string, string>();
    for (const { from, to } of await readMapPairs(config.groupMap, baseDir, 'groupMap')) {
      addId(groups, from, to, config.idRule as IdRule);
      result.used.push({ entity: 'groups', sourceId: from, id: to });
    }
    result.ids.groups = groups;
  }
  if (config.userMap === undefined) return result;
  const users = new Map<string, string>();
  const byEmail = new Map<string, string>();
  for (const { from, to } of await readMapPairs(config.userMap, baseDir, 'userMap')) {
    if (from.includes('@')) byEmail.set(from.toLowerCase(), to);
    else {
      addId(users, from, to, config.idRule as IdRule);
      result.used.push({ entity: 'users', sourceId: from, id: to });
    }
  }
  result.ids.users = users;
  if (byEmail.size === 0) return result;
  const plan = plans.find((p) => p.entity.name === 'users');
  if (plan === undefined) {
    result.emailWarnings.push(`its ${byEmail.size} e-mail lines match nothing: the export has no users to match`);
    return result;
  }
  const places = emailPlaces(config.userEmailField, plan.source.map, config.preset);
  const matched = new Set<string>();
  let withEmail = 0;
  const mapper = createMapper(mapperOptionsFor(ENTITIES.users, { ...plan.source, ids: undefined }, config));
  for (const input of plan.inputs) {
    for await (const item of input.read({ entity: 'users' })) {
      if (item.kind !== 'record') continue;
      const mapped = mapper(item);
      const email = emailOf(places, item, mapped.payload)?.toLowerCase();
      if (email === undefined) continue;
      withEmail++;
      const to = byEmail.get(email);
      if (to === undefined || mapped.id === '') continue;
      matched.add(email);
      users.set(mapped.id.toLowerCase(), to);
      result.used.push({ entity: 'users', sourceId: mapped.id, id: to });
    }
  }
  const where = `e-mails read from ${places.described}`;
  if (withEmail === 0) {
    const fix = places.configured ? 'check userEmailField' : 'name the field with userEmailField';
    result.emailWarnings.push(`no user of the export has an e-mail (${where}): ${fix}`);
  } else {
    for (const email of byEmail.keys())
      if (!matched.has(email)) result.emailWarnings.push(`no user of the export has the e-mail ${email} (${where})`);
  }
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
