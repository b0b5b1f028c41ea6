/**
 * Where a Slack export's files sit. A workspace export (or its zip) has one root: the folder holding
 * users.json / channels.json. The folder `chat-migrate pull slack --out <dir>` writes has one root
 * per pull run (`full-<stamp>/`, then `delta-<stamp>/` ones), read as one export, oldest run first:
 * the same user or conversation in two runs is one record, its newest copy.
 */
import path from 'node:path';
import { InputError } from '../../errors.js';
import { byCodeUnit } from '../shared/export-tree.js';
import { CONVERSATION_KINDS, USERS_FILE } from './layout.js';

/** A pull run's folder (src/pipeline/pull/pull-in-run.ts names them). */
const RUN_FOLDER = /^(?:full|delta)-(\d{8}T\d{6}Z)$/;
const ANCHORS: string[] = [USERS_FILE, CONVERSATION_KINDS[0].file];

/** The export's roots, oldest first; `''` is the tree's own top. */
export function findRoots(files: readonly string[]): string[] {
  const runs = new Map<string, string>();
  for (const file of files) {
    const parts = file.split('/');
    const at = parts.findIndex((part, i) => i < parts.length - 1 && RUN_FOLDER.test(part));
    if (at >= 0) runs.set(parts.slice(0, at + 1).join('/'), RUN_FOLDER.exec(parts[at])![1]);
  }
  if (runs.size > 0) {
    // A full run and its deltas, in the order they were pulled (the stamp; `delta-` would sort first).
    return [...runs].sort(([a, x], [b, y]) => byCodeUnit(x, y) || byCodeUnit(a, b)).map(([root]) => root);
  }
  return [findBase(files)];
}

/** The folder holding users.json / channels.json: the export's root, or the one folder a zip wraps it in. */
function findBase(files: readonly string[]): string {
  const anchors = files.filter((f) => ANCHORS.includes(path.posix.basename(f)));
  if (anchors.length === 0) {
    throw new InputError('INPUT_NOT_PRESET', 'not a Slack export: no users.json or channels.json found', {
      hint: 'point --from at the unzipped export folder, the .zip Slack gave you, or the folder pull slack wrote',
    });
  }
  const dirs = anchors.map((f) => path.posix.dirname(f)).sort((a, b) => a.length - b.length || byCodeUnit(a, b));
  return dirs[0] === '.' ? '' : dirs[0];
}

/** A path inside a root. */
export const inRoot = (root: string, name: string) => (root === '' ? name : `${root}/${name}`);

/** For each id, the last root (index) that lists it: earlier copies are superseded. */
export class LastCopy {
  private readonly last = new Map<string, number>();

  see(id: string, root: number): void {
    this.last.set(id, root);
  }

  /** Whether a later root lists `id` again. */
  supersededAt(id: string, root: number): boolean {
    return (this.last.get(id) ?? root) > root;
  }
}
