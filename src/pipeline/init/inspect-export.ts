/**
 * `init`'s inspection: a folder, zip or file -> the config that imports it. A preset's export is
 * recognised by content (systems/detect); otherwise each plain CSV / JSON / NDJSON file is given
 * an entity and a `map` from its columns (inspect-plain.ts). The proposal says what is settled and
 * what needs the user's choice; it never writes anything (cli/init-command.ts does).
 */
import path from 'node:path';
import type { SourceConfig, SourcesConfig } from '../../config/types.js';
import { ENTITY_ORDER, type EntityName } from '../../entities/types.js';
import { detectPreset, openExportTree, type Detection } from '../../systems/detect/index.js';
import type { Ambiguity } from './guess-map.js';
import { inspectPlainFile, PLAIN_FILE, resolvePlainFile, type PlainFile } from './inspect-plain.js';

/** What the tool itself writes beside an export (rejects, id maps): never an export's file. */
const OWN_FILE = /(^|\/)migrate-rejects[^/]*\.ndjson$|\.ids\.ndjson$/;

export interface InitOptions {
  /** The export, absolute. */
  target: string;
  /** The folder the config is written to: paths in it are relative to it. */
  configDir: string;
  /** API field -> column, settling an ambiguity or naming a column for a field. */
  picks: Record<string, string>;
  /** File (as shown, or its base name) -> the entity it holds. */
  entities: Record<string, EntityName>;
}

export type InitProposal =
  | { kind: 'preset'; detection: Detection; config: { preset: string; from: string } }
  | {
      kind: 'plain';
      files: PlainFile[];
      config: { sources: SourcesConfig };
      problems: string[];
      /** Files in folders below the plain files (another export there: `nested`), not read. */
      notRead?: { files: string[]; nested: string };
    }
  | { kind: 'nothing'; files: readonly string[]; why: string };

export async function inspectExport(options: InitOptions): Promise<InitProposal> {
  const tree = await openExportTree(options.target, options.configDir);
  const detection = await detectPreset(tree, options.target);
  // Plain files at the top, none of them the preset's: a plain export, with other exports below it.
  const top = tree.files.filter((rel) => !rel.includes('/') && PLAIN_FILE.test(rel) && !OWN_FILE.test(rel));
  const plainAtTop = top.length > 0 && top.every((rel) => detection?.unrecognized.includes(rel));
  if (detection !== undefined && !plainAtTop) {
    const from = relativePath(options.configDir, detection.from);
    return { kind: 'preset', detection, config: { preset: detection.preset, from } };
  }
  if (tree.kind === 'zip')
    return { kind: 'nothing', files: tree.files, why: 'a zip of plain files: unzip it and run init on the folder' };
  const rels = plainAtTop ? top : tree.files.filter((rel) => PLAIN_FILE.test(rel) && !OWN_FILE.test(rel));
  if (rels.length === 0) return { kind: 'nothing', files: tree.files, why: 'no CSV, JSON or NDJSON file found' };
  const files: PlainFile[] = [];
  for (const rel of rels) {
    const abs = tree.kind === 'file' ? options.target : path.join(options.target, rel);
    const file = await resolvePlainFile(abs, options.configDir);
    const entity = options.entities[file.display] ?? options.entities[path.basename(abs)];
    files.push(await inspectPlainFile(file, { entity, picks: options.picks }));
  }
  await placeReferences(files, options.picks);
  const notRead = plainAtTop
    ? { files: tree.files.filter((rel) => rel.includes('/')), nested: detection!.preset }
    : undefined;
  return { kind: 'plain', files, ...plainConfig(files, options.configDir), ...(notRead ? { notRead } : {}) };
}

/** The fields that name a record of another entity, and which entity's key field holds the ids. */
const REFERENCES: Partial<Record<EntityName, Array<{ field: string; to: EntityName; key: string }>>> = {
  members: [
    { field: 'uid', to: 'users', key: 'uid' },
    { field: 'guid', to: 'groups', key: 'guid' },
  ],
  messages: [{ field: 'sender', to: 'users', key: 'uid' }],
};

/**
 * A reference no column name gave (`participants.json`'s `account_id` for members.uid) is the one
 * column, not placed yet, whose values looked at are all ids of the file that holds that entity
 * (`accounts.json`'s `id`, its users' uid): placed without a question, and said why. Two such
 * columns, or none, leave the field missing, for the user to pick.
 */
async function placeReferences(files: PlainFile[], picks: Record<string, string>): Promise<void> {
  for (const [at, f] of files.entries()) {
    const entity = f.entity.entity;
    const guess = f.guess;
    if (entity === undefined || guess === undefined) continue;
    const found: Record<string, string> = {};
    const why: string[] = [];
    for (const ref of REFERENCES[entity] ?? []) {
      if (!guess.missing.includes(ref.field)) continue;
      const holders = files.filter((o) => o.entity.entity === ref.to && o.guess?.placed[ref.key] !== undefined);
      const ids = new Set(holders.flatMap((o) => o.head.map((r) => idText(r[o.guess!.placed[ref.key]]))));
      ids.delete(undefined);
      if (ids.size === 0) continue;
      const free = [...guess.unplaced, ...guess.kept].filter((c) => !Object.values(found).includes(c));
      const matching = free.filter((column) => {
        const values = f.head.map((r) => idText(r[column])).filter((v) => v !== undefined);
        return values.length > 0 && values.every((v) => ids.has(v));
      });
      if (matching.length !== 1) continue;
      found[ref.field] = matching[0];
      const names = holders.map((o) => `${path.basename(o.file.display)}'s ${o.guess!.placed[ref.key]}`).join(', ');
      why.push(`${ref.field} <- ${matching[0]}: its values are ${names} values`);
    }
    if (why.length === 0) continue;
    const again = await inspectPlainFile(f.file, { entity, picks: { ...picks, ...found } });
    again.entity = { ...f.entity, why: [...(f.entity.why ?? []), ...why] };
    files[at] = again;
  }
}

function idText(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return undefined;
}

/** The sources of the files that settled, and every problem that keeps the config from being written. */
function plainConfig(files: readonly PlainFile[], configDir: string) {
  const problems: string[] = [];
  const sources: SourcesConfig = {};
  const byEntity = new Map<EntityName, PlainFile[]>();
  for (const f of files) {
    const where = f.file.display;
    if (f.entity.ambiguity !== undefined) problems.push(`${where}: ${describe(f.entity.ambiguity, where)}`);
    const entity = f.entity.entity;
    if (entity === undefined) continue;
    for (const a of f.guess?.ambiguities ?? []) problems.push(`${where}: ${describe(a)}`);
    for (const field of f.guess?.missing ?? [])
      problems.push(`${where}: no column for ${field}, which ${entity} need: name one with --pick ${field}=<column>`);
    byEntity.set(entity, [...(byEntity.get(entity) ?? []), f]);
  }
  for (const entity of ENTITY_ORDER) {
    const group = byEntity.get(entity);
    if (group === undefined) continue;
    const configs = group.map((f) => sourceOf(f, configDir));
    const shape = (c: SourceConfig) => JSON.stringify({ ...c, path: undefined });
    if (configs.some((c) => shape(c) !== shape(configs[0]))) {
      const names = group.map((f) => f.file.display).join(', ');
      problems.push(`${names} all hold ${entity} but with different columns: one source reads them with one map`);
      continue;
    }
    const paths = configs.map((c) => c.path as string);
    sources[entity] = { ...configs[0], path: paths.length === 1 ? paths[0] : paths };
  }
  return { config: { sources }, problems };
}

function sourceOf(f: PlainFile, configDir: string): SourceConfig {
  const source: SourceConfig = { path: relativePath(configDir, f.file.path) };
  const guess = f.guess;
  if (guess === undefined) return source;
  if (Object.keys(guess.map).length > 0) source.map = guess.map;
  if (Object.keys(guess.values).length > 0) source.values = guess.values;
  if (guess.softDeleteField !== undefined) source.deletion = { softField: guess.softDeleteField };
  return source;
}

/** An ambiguity and the flags that settle it; `file` names the file in an `--entity` choice. */
export function describe(a: Ambiguity, file = '<file>'): string {
  if (a.kind === 'field')
    return `${a.columns.map((c) => `"${c}"`).join(' and ')} could each be ${a.field}: choose with ${a.columns
      .map((c) => `--pick ${a.field}=${c}`)
      .join(' or ')}`;
  if (a.kind === 'column')
    return `"${a.column}" could be ${a.fields.join(' or ')}: choose with ${a.fields
      .map((f) => `--pick ${f}=${a.column}`)
      .join(' or ')}`;
  return `its columns fit ${a.entities.join(' and ')} equally: choose with ${a.entities
    .map((e) => `--entity ${file}=${e}`)
    .join(' or ')}`;
}

/** A path as the config writes it: relative to the config's folder, with `/`. */
function relativePath(configDir: string, target: string): string {
  const rel = path.relative(configDir, target);
  if (rel === '') return '.';
  if (path.isAbsolute(rel)) return target;
  const posix = rel.split(path.sep).join('/');
  return posix.startsWith('.') ? posix : `./${posix}`;
}
