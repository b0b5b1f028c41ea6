/**
 * From a plain file's column names to the entity it holds and a source config for it (`map`,
 * `values`, `deletion`), by the rules of column-rules.ts. Nothing is chosen silently: two columns
 * for one field, one column for two fields, or a file two entities fit equally are returned as
 * ambiguities with their choices, to be settled by the user (`--pick`, `--entity`).
 */
import { DELETION_FIELDS } from '../../config/sources-schema.js';
import { ENTITIES } from '../../entities/index.js';
import { ENTITY_ORDER, type EntityName } from '../../entities/types.js';
import { FIELD_RULES, GENERIC, METADATA_AT, normalize, REQUIRED, type FieldRule } from './column-rules.js';

/** A column of the file: a top-level key, or `head.sub` inside an object-valued key. */
export interface Column {
  name: string;
  /** Holds objects: matched only through its sub-keys. */
  isObject: boolean;
  /** A sub-key of an object-valued key (`author.id`), not a column of its own. */
  sub: boolean;
}

export type Ambiguity =
  | { kind: 'field'; field: string; columns: string[] }
  | { kind: 'column'; column: string; fields: string[] }
  | { kind: 'entity'; entities: EntityName[] };

export interface EntityGuess {
  entity?: EntityName;
  scores: Record<EntityName, number>;
  ambiguity?: Ambiguity;
  /** What settled it beyond the columns (the file's name, a missing time column), said to the user. */
  why?: string[];
}

export interface MapGuess {
  /** target -> column, only where they differ. */
  map: Record<string, string>;
  values: Record<string, string>;
  softDeleteField?: string;
  /** field -> the column it comes from (identity ones too), for the report. */
  placed: Record<string, string>;
  /** Columns kept in metadata because no API field takes them. */
  kept: string[];
  /** Columns not sent at all (members have no metadata). */
  unplaced: string[];
  missing: string[];
  ambiguities: Ambiguity[];
  /** Fields given a fixed value, with why (shown to the user). */
  assumed: Array<{ field: string; value: string; why: string }>;
}

/** The least score for a file to be taken as an entity's: two columns that are not generic names. */
const MIN_SCORE = 2;

/**
 * A file's name as evidence, checked in this order (`channel_members` is members, `channel_messages`
 * messages): worth one column, so it settles a tie and tips a near one, never outweighs clear columns.
 */
const NAME_WORDS: ReadonlyArray<[EntityName, RegExp]> = [
  ['members', /member|participant|subscri(?:ber|ption)|roster/],
  ['messages', /message|msg|post|chatlog|transcript|history/],
  ['groups', /channel|room|conversation|group|chat|team|board/],
  ['users', /user|people|person|account|profile|contact/],
];
const NAME_WEIGHT = 1;

/** Each required field no column could give lowers an entity's standing (not its score). */
const MISSING_WEIGHT = 1;

/** Every candidate name of an entity's fields: a column is evidence for each entity that has a use for it. */
const CANDIDATES = Object.fromEntries(
  ENTITY_ORDER.map((e) => [e, new Set(FIELD_RULES[e].flatMap((r) => r.tiers.flat()))]),
) as Record<EntityName, Set<string>>;

/** The entity a file's name says it holds (`room_members.ndjson`: members), if any. */
export function entityNamed(fileName: string): EntityName | undefined {
  const base = normalize(fileName.replace(/^.*[\\/]/, '').replace(/(\.[a-z]+)+$/i, ''));
  return NAME_WORDS.find(([, words]) => words.test(base))?.[0];
}

/**
 * The entity a file holds, as a person would tell it: each column counts for every entity that has
 * a use for it (a generic name such as `id` half), the file's name counts as one column, and an
 * entity stands one lower for each field the service requires that no column could give: a file
 * with no id and no time column (`channel_id,user_id`) is a member list, not messages. Entities
 * left level are a choice for the user, never a coin toss.
 */
export function guessEntity(columns: readonly Column[], fileName = ''): EntityGuess {
  const names = new Set(columns.filter((c) => !c.isObject).map((c) => normalize(c.name)));
  const scores = Object.fromEntries(ENTITY_ORDER.map((e) => [e, 0])) as Record<EntityName, number>;
  const standing = { ...scores };
  const missing = new Map<EntityName, string[]>();
  const named = entityNamed(fileName);
  for (const entity of ENTITY_ORDER) {
    for (const name of names) if (CANDIDATES[entity].has(name)) scores[entity] += GENERIC.has(name) ? 0.5 : 1;
    if (scores[entity] === 0) continue;
    if (entity === named) scores[entity] += NAME_WEIGHT;
    const lacking = REQUIRED[entity].filter((field) => !hasCandidate(entity, field, names));
    missing.set(entity, lacking);
    standing[entity] = scores[entity] - MISSING_WEIGHT * lacking.length;
  }
  const ranked = ENTITY_ORDER.filter((e) => scores[e] > 0).sort((a, b) => standing[b] - standing[a]);
  const [best, second] = ranked;
  if (best === undefined) return { scores };
  const level = ranked.filter((e) => standing[e] === standing[best]);
  // Too few columns to tell by, unless two entities each have every field they need (`id,name`): a choice.
  if (scores[best] < MIN_SCORE && !(level.length > 1 && level.every((e) => missing.get(e)?.length === 0)))
    return { scores };
  if (level.length > 1) return { scores, ambiguity: { kind: 'entity', entities: level } };
  const why: string[] = [];
  // Said only where it made the difference: the columns alone were level, or too few.
  const byName = named === best ? NAME_WEIGHT : 0;
  const nameDecided =
    scores[best] - byName < MIN_SCORE || (second !== undefined && standing[best] - byName <= standing[second]);
  if (byName > 0 && nameDecided) why.push(`its name says ${best}`);
  for (const other of ranked.slice(1)) {
    const lacking = missing.get(other) ?? [];
    if (scores[other] >= scores[best] - byName && lacking.length > 0)
      why.push(`not ${other}: no column for ${lacking.join(' or ')}, which ${other} need`);
  }
  return why.length > 0 ? { entity: best, scores, why } : { entity: best, scores };
}

function hasCandidate(entity: EntityName, field: string, names: ReadonlySet<string>): boolean {
  const rule = FIELD_RULES[entity].find((r) => r.field === field);
  return rule?.tiers.some((tier) => tier.some((n) => names.has(n))) === true;
}

export function guessMap(entity: EntityName, columns: readonly Column[], picks: Record<string, string>): MapGuess {
  const guess: MapGuess = {
    ...{ map: {}, values: {}, placed: {}, kept: [], unplaced: [] },
    ...{ missing: [], ambiguities: [], assumed: [] },
  };
  const scalar = columns.filter((c) => !c.isObject).map((c) => c.name);
  const rules = FIELD_RULES[entity];
  const chosen = new Map<string, string>(); // field -> column
  for (const [field, column] of Object.entries(picks)) {
    if (!scalar.includes(column)) continue;
    chosen.set(field, column);
  }
  const reserved = new Set(chosen.values());
  const claims = new Map<string, string[]>(); // column -> fields that would take it
  for (const rule of rules) {
    if (chosen.has(rule.field)) continue;
    const found = firstTier(
      rule,
      scalar.filter((c) => !reserved.has(c)),
    );
    if (found.length > 1) guess.ambiguities.push({ kind: 'field', field: rule.field, columns: found });
    else if (found.length === 1) claims.set(found[0], [...(claims.get(found[0]) ?? []), rule.field]);
  }
  for (const [column, fields] of claims) {
    if (fields.length > 1) guess.ambiguities.push({ kind: 'column', column, fields });
    else chosen.set(fields[0], column);
  }
  // Columns named exactly as an API field of the entity go through as they are.
  const apiFields = new Set<string>(ENTITIES[entity].fields);
  for (const column of scalar) if (apiFields.has(column) && !chosen.has(column)) chosen.set(column, column);

  const { softField, permanentField } = DELETION_FIELDS;
  for (const [field, column] of chosen) {
    guess.placed[field] = column;
    // The mapper reads its own deletion fields by name: only another column needs a setting.
    if (field === 'deletion.softField') guess.softDeleteField = column === softField.default ? undefined : column;
    else if (field !== column) guess.map[field] = column;
  }
  fillValues(entity, chosen, guess);
  const taken = new Set(chosen.values());
  if (entity === 'messages') taken.add(permanentField.default);
  const pending = new Set(
    guess.ambiguities.flatMap((a) => (a.kind === 'field' ? a.columns : a.kind === 'column' ? [a.column] : [])),
  );
  for (const column of leftovers(columns, taken, apiFields)) {
    if (pending.has(column)) continue;
    const at = METADATA_AT[entity];
    if (at === undefined) guess.unplaced.push(column);
    else {
      guess.kept.push(column);
      guess.map[`${at}.${column}`] = column;
    }
  }
  // A field waiting on a choice is named by its ambiguity, not again as missing.
  const undecided = new Set(
    guess.ambiguities.flatMap((a) => (a.kind === 'field' ? [a.field] : a.kind === 'column' ? a.fields : [])),
  );
  guess.missing = REQUIRED[entity].filter((f) => !chosen.has(f) && !undecided.has(f) && guess.values[f] === undefined);
  return guess;
}

/** The columns of the first tier of the rule that has any. */
function firstTier(rule: FieldRule, columns: readonly string[]): string[] {
  for (const tier of rule.tiers) {
    const present = columns.filter((c) => tier.includes(normalize(c)));
    if (present.length > 0) return present;
  }
  return [];
}

/** Fields the service requires that no column gives: a fixed value, said out loud. */
function fillValues(entity: EntityName, chosen: ReadonlyMap<string, string>, guess: MapGuess): void {
  const assume = (field: string, value: string, why: string) => {
    guess.values[field] = value;
    guess.assumed.push({ field, value, why });
  };
  if (entity === 'messages') {
    const receiver = chosen.get('receiver');
    if (receiver !== undefined && !chosen.has('receiverType')) {
      const rule = FIELD_RULES.messages.find((r) => r.field === 'receiver');
      const type = rule?.receiverTypes?.[normalize(receiver)] ?? 'group';
      assume('receiverType', type, `"${receiver}" names a ${type === 'group' ? 'channel or room' : 'person'}`);
    }
    if (!chosen.has('type')) assume('type', 'text', 'no column says the message type');
  }
  if (entity === 'groups' && !chosen.has('type'))
    assume('type', 'private', 'no column says who may see the group: private is the least exposure');
}

/** Columns no field took; an object-valued key only when none of its sub-keys was taken. */
function leftovers(columns: readonly Column[], taken: ReadonlySet<string>, apiFields: ReadonlySet<string>): string[] {
  const head = (name: string) => name.split('.')[0];
  const usedHeads = new Set([...taken].filter((c) => c.includes('.')).map(head));
  return columns
    .filter((c) => !taken.has(c.name) && !apiFields.has(head(c.name)))
    .filter((c) => (c.sub ? usedHeads.has(head(c.name)) : !(c.isObject && usedHeads.has(c.name))))
    .map((c) => c.name);
}
