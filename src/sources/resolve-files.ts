/** Turns a source's `path` (a file, a list, globs) into the files to read, in a stable order. */
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import type { SourceConfig, SourceFormat } from '../config/types.js';
import { InputError } from '../errors.js';
import type { ResolvedFile } from './types.js';

const FORMAT_BY_EXTENSION: Readonly<Record<string, SourceFormat>> = {
  '.csv': 'csv',
  '.json': 'json',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/**
 * Expands a SourceConfig's path (file, list, or glob) into files, sorted by path, deduplicated.
 * Format from the extension (.csv, .json, .ndjson, .jsonl, each also .gz) unless `config.format`.
 * A missing file, a glob matching nothing, an unknown extension: InputError naming the path.
 */
export async function resolveSourceFiles(config: SourceConfig, cwd: string): Promise<ResolvedFile[]> {
  const entries = Array.isArray(config.path) ? config.path : [config.path];
  if (entries.length === 0) throw new InputError('INPUT_NOT_FOUND', 'the source lists no files');
  const paths = new Set<string>();
  for (const entry of entries) {
    for (const path of await expandEntry(entry, cwd)) paths.add(path);
  }
  // Code-unit order, not localeCompare: the same on every machine, so resumes see the same order.
  const sorted = [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.map((path) => describeFile(path, cwd, config.format));
}

async function expandEntry(entry: string, cwd: string): Promise<string[]> {
  const path = resolve(cwd, entry);
  // A literal file wins over glob syntax: exports are often named like "chat [2024].csv".
  const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw new InputError('INPUT_UNREADABLE', `cannot read ${entry}: ${error.message}`, { cause: error });
  });
  if (stats?.isFile()) return [path];
  if (stats?.isDirectory()) {
    throw new InputError('INPUT_NOT_FOUND', `${entry} is a directory, not a file`, {
      location: { file: entry },
      hint: `to read every file in it, give a glob such as "${entry.replace(/[\\/]+$/, '')}/*.csv"`,
    });
  }
  if (!isDynamicPattern(entry)) {
    throw new InputError('INPUT_NOT_FOUND', `source file not found: ${entry}`, { location: { file: entry } });
  }
  const matches = await glob(entry, { cwd, absolute: true, onlyFiles: true, expandDirectories: false });
  if (matches.length === 0) {
    throw new InputError('INPUT_NOT_FOUND', `no files match ${entry}`, { location: { file: entry } });
  }
  return matches.map((match) => resolve(match));
}

function describeFile(path: string, cwd: string, format: SourceFormat | undefined): ResolvedFile {
  const rel = relative(cwd, path);
  const display = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  const lower = path.toLowerCase();
  const gzip = lower.endsWith('.gz');
  const base = gzip ? lower.slice(0, -3) : lower;
  const dot = base.lastIndexOf('.');
  const detected = dot > base.lastIndexOf('/') ? FORMAT_BY_EXTENSION[base.slice(dot)] : undefined;
  const chosen = format ?? detected;
  if (chosen === undefined) {
    throw new InputError('INPUT_FORMAT', `cannot tell the format of ${display} from its extension`, {
      location: { file: display },
      hint: 'name it .csv, .json, .ndjson or .jsonl (optionally .gz), or set the source\'s "format"',
    });
  }
  return { path, display, format: chosen, gzip };
}
