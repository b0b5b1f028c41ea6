/**
 * The files a migration keeps between runs (checkpoint, its lock, rejects file, id map): where the
 * id map goes, the folders they need, and why one cannot be written, in words.
 *
 * Every one of them is created 0600: they hold the export's records and ids, which are nobody
 * else's to read. A file rewritten by temp + rename takes the temp's mode, so the temp is 0600 too.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Mode of every file the tool creates. */
export const STATE_FILE_MODE = 0o600;

/**
 * The id mapping file of the migration whose checkpoint is `checkpoint`: beside it, named after it
 * (`state/ckpt.json` -> `state/ckpt.ids.ndjson`), so two migrations never share one and a CI job
 * caches one folder.
 */
export function idMapPathOf(checkpoint: string): string {
  const base = checkpoint.endsWith('.json') ? checkpoint.slice(0, -'.json'.length) : checkpoint;
  return `${base}.ids.ndjson`;
}

/**
 * The id log of the migration whose checkpoint is `checkpoint` (`state/ckpt.json` ->
 * `state/ckpt.imported.ndjson`): one line per record the service accepted, appended across runs
 * (id-log.ts). Apart from the id map, which presets rewrite each run.
 */
export function idLogPathOf(checkpoint: string): string {
  const base = checkpoint.endsWith('.json') ? checkpoint.slice(0, -'.json'.length) : checkpoint;
  return `${base}.imported.ndjson`;
}

/**
 * The presets' pre-pass facts of each message file (`state/ckpt.prepass.json`), kept so a run reads
 * only the files that are new or changed (systems/shared/prepass-cache.ts).
 */
export function prepassPathOf(checkpoint: string): string {
  return idMapPathOf(checkpoint).replace(/\.ids\.ndjson$/, '.prepass.json');
}

/** The media map (source -> stored object) of the migration whose checkpoint is `checkpoint`, beside it. */
export function mediaMapPathOf(checkpoint: string): string {
  return idMapPathOf(checkpoint).replace(/\.ids\.ndjson$/, '.media.ndjson');
}

/** The last run's media problems (files not carried, with why), beside the checkpoint. */
export function mediaProblemsPathOf(checkpoint: string): string {
  return idMapPathOf(checkpoint).replace(/\.ids\.ndjson$/, '.media-problems.ndjson');
}

/**
 * The folder of the media pass's downloads in progress, beside the checkpoint
 * (`state/ckpt.media-tmp`): in the state folder, not the system's temp one, so the next run (which
 * holds the same lock) finds and removes what a killed run left there.
 */
export function mediaTempPathOf(checkpoint: string): string {
  return idMapPathOf(checkpoint).replace(/\.ids\.ndjson$/, '.media-tmp');
}

/**
 * The run log of the migration whose checkpoint is `checkpoint` (`state/ckpt.json` ->
 * `state/ckpt.runs.ndjson`): every run of import, validate, verify and replay appends to it.
 */
export function runLogPathOf(checkpoint: string): string {
  const base = checkpoint.endsWith('.json') ? checkpoint.slice(0, -'.json'.length) : checkpoint;
  return `${base}.runs.ndjson`;
}

const WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
  EISDIR: 'is a folder, not a file',
  ENOENT: 'no such file or folder',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
};

/** `permission denied (EACCES)`: the system's code kept for a search, the words for a person. */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) return err instanceof Error ? err.message : String(err);
  return WORDS[code] ? `${WORDS[code]} (${code})` : code;
}

/**
 * Creates the folders `file` goes in (a first run into an empty CI cache). Throws an Error whose
 * message says what is in the way: `state is a file, not a folder (ENOTDIR)`,
 * `cannot create the folder /x/state: permission denied (EACCES)`.
 */
export async function makeFolderFor(file: string): Promise<void> {
  const folder = path.dirname(path.resolve(file));
  try {
    await mkdir(folder, { recursive: true });
  } catch (err) {
    throw new Error(await folderProblem(folder, err));
  }
}

async function folderProblem(folder: string, err: unknown): Promise<string> {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    // Some part of the path exists and is not a folder: name that part, not the whole path.
    for (let at = folder; ; at = path.dirname(at)) {
      const found = await stat(at).catch(() => undefined);
      // mkdir says EEXIST when the folder itself is a file; ENOTDIR names the problem either way.
      if (found && !found.isDirectory()) return `${at} is a file, not a folder (ENOTDIR)`;
      if (found || path.dirname(at) === at) break;
    }
  }
  return `cannot create the folder ${folder}: ${fsReason(err)}`;
}
