/**
 * Finding and parsing the config file (cosmiconfig). A file that is not valid JSON or YAML is an error
 * that says where, as `file:line:column: invalid JSON: reason`, never cosmiconfig's bare
 * "JSON Error in <file>:" nor a stack.
 */
import path from 'node:path';
import { cosmiconfig, getDefaultSearchPlaces } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { lineColumnAt } from '../json/json-error.js';
import { findJsonSyntaxError } from './json-syntax.js';

const MODULE_NAME = 'migrate';

/** Where a config file is looked for, in order: the product's documented name, then cosmiconfig's. */
export const SEARCH_PLACES = ['.migrate.config.json', ...getDefaultSearchPlaces(MODULE_NAME)];

/** Words for a folder with no config file: where it was looked for, `package.json` as its `migrate` key. */
export function notFoundText(cwd: string): string {
  const places = SEARCH_PLACES.map((p) => (p === 'package.json' ? 'a "migrate" key in package.json' : p));
  return `no config file found in ${cwd}: looked for ${places.join(', ')}`;
}

export interface FoundConfigFile {
  filepath: string;
  /** The path as the user would write it: relative to the working directory. */
  display: string;
  config: unknown;
}

/** A file's text that does not parse; its message is completed with the file's name where it is caught. */
class ConfigSyntaxError extends Error {
  constructor(
    readonly format: 'JSON' | 'YAML',
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`invalid ${format}: ${reason}`);
  }
}

/** The `.json` loader: JSON.parse, and on failure a reason with a line and column. */
function loadJson(_filepath: string, content: string): unknown {
  // Editors on Windows may save a byte order mark; cosmiconfig's own loader (parse-json) drops it too.
  const text = content.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (err) {
    const found = findJsonSyntaxError(text);
    if (found === undefined) throw err;
    const { line, column } = lineColumnAt(text, found.offset);
    throw new ConfigSyntaxError('JSON', line, column, found.reason);
  }
}

/** js-yaml's error (a YAMLException, thrown through cosmiconfig) carries the reason and a 0-based mark. */
interface YamlException {
  reason: string;
  mark: { line: number; column: number };
}
const isYamlException = (e: unknown): e is YamlException => {
  const x = e as Partial<YamlException> | null;
  return typeof x?.reason === 'string' && typeof x.mark?.line === 'number' && typeof x.mark.column === 'number';
};

/** The config file given with --config, or the first one found in the working directory; undefined if none. */
export async function findConfigFile(cwd: string, configFile?: string): Promise<FoundConfigFile | undefined> {
  const explorer = cosmiconfig(MODULE_NAME, {
    // The product's documented file name (README) is not among cosmiconfig's defaults.
    searchPlaces: SEARCH_PLACES,
    searchStrategy: 'none',
    loaders: { '.json': loadJson },
  });
  const where = configFile ?? 'the config file';
  let result;
  try {
    result = configFile ? await explorer.load(path.resolve(cwd, configFile)) : await explorer.search(cwd);
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { filepath?: string };
    if (e.code === 'ENOENT') throw new ConfigError('CONFIG_NOT_FOUND', `config file not found: ${where}`);
    const file = e.filepath === undefined ? where : path.relative(cwd, e.filepath) || e.filepath;
    if (err instanceof ConfigSyntaxError) {
      throw new ConfigError('CONFIG_SYNTAX', `${file}:${err.line}:${err.column}: ${err.message}`);
    }
    if (isYamlException(err)) {
      const { line, column } = err.mark;
      throw new ConfigError('CONFIG_SYNTAX', `${file}:${line + 1}:${column + 1}: invalid YAML: ${err.reason}`);
    }
    // A JavaScript config that throws, or a file that cannot be read: the first line that says something.
    const first = String(e.message ?? e)
      .split('\n')
      .find((l) => l.trim() !== '' && !/^\w+ Error in .*:\s*$/.test(l));
    throw new ConfigError('CONFIG_UNREADABLE', `cannot read ${where}: ${first ?? String(e.message ?? e).trim()}`);
  }
  if (!result) return undefined;
  return { ...result, display: path.relative(cwd, result.filepath) || result.filepath };
}
