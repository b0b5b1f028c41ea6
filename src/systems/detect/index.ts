/**
 * Which chat system wrote an export, found from the files' content (never their names), with rough
 * counts of what it holds: the first step of `chat-migrate init`. Every file is peeked at (a
 * bounded prefix, peek.ts) up to a number of files; files past it that sit where the export's
 * messages files sit (same depth, same extension) are taken to be more of them.
 */
import path from 'node:path';
import type { ExportTree } from '../shared/export-tree.js';
import { countExport, type Counts } from './count.js';
import { peekFile } from './peek.js';
import { loadSystems } from '../index.js';
import type { SystemName } from '../registry.js';
import { recognize, type FileKind, type Recognized } from './recognize.js';

export { openExportTree } from '../shared/export-tree.js';
export type { ExportTree } from '../shared/export-tree.js';

/** Files peeked at before the rest is judged by their place. */
const MAX_PEEKED = 300;
/** Media and archives beside an export's JSON (attachments, avatars): never an export's index or messages. */
const MEDIA = /\.(jpe?g|png|gif|webp|heic|bmp|svg|tgs|webm|mp4|mov|mkv|avi|mp3|ogg|oga|opus|wav|m4a|flac|pdf|zip|gz)$/i;

export interface Detection {
  preset: SystemName;
  /** What to give the preset as `from`: the export, or (Telegram) the one file it reads. */
  from: string;
  files: number;
  filesByKind: Partial<Record<FileKind, number>>;
  /** A file that shows what the export is, as records name it. */
  example: string;
  counts: Counts;
  /** Files that look like another preset's, not read by this one. */
  others: Array<{ preset: SystemName; files: number }>;
  /** Files no rule recognised (CSV, media, notes). */
  unrecognized: string[];
}

/** The preset an export is, or undefined when no file is any preset's. */
export async function detectPreset(tree: ExportTree, fromPath: string): Promise<Detection | undefined> {
  const found: Array<{ rel: string; what: Recognized }> = [];
  const unrecognized: string[] = [];
  const systems = await loadSystems();
  const recognizers = systems.map(([, system]) => system.recognize);
  // Shallow files first: an export's index files (users, channels) sit near its root, its many
  // message files below, so the peek limit never hides the index behind the day files.
  const depth = (rel: string) => rel.split('/').length;
  const candidates = tree.files.filter((rel) => !MEDIA.test(rel)).sort((a, b) => depth(a) - depth(b));
  for (const rel of candidates.slice(0, MAX_PEEKED)) {
    const peek = await peekFile(tree, rel);
    const what = peek === undefined ? undefined : recognize(peek, recognizers);
    if (what === undefined) unrecognized.push(rel);
    else found.push({ rel, what });
  }
  const byPreset = new Map<SystemName, number>();
  for (const f of found) byPreset.set(f.what.preset, (byPreset.get(f.what.preset) ?? 0) + 1);
  const ranked = [...byPreset].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0) return undefined;
  const preset = ranked[0][0];
  const mine = found.filter((f) => f.what.preset === preset);
  mine.push(...judgedByPlace(candidates.slice(MAX_PEEKED), mine));
  const rels = mine.map((f) => f.rel);
  const { presetFrom } = systems.find(([name]) => name === preset)![1];
  const filesByKind: Detection['filesByKind'] = {};
  for (const f of mine) filesByKind[f.what.kind] = (filesByKind[f.what.kind] ?? 0) + 1;
  return {
    preset,
    from: presetFrom?.(tree, fromPath, rels) ?? fromPath,
    files: mine.length,
    filesByKind,
    example: tree.where(mine[0].rel),
    counts: await countExport(tree, mine),
    others: ranked.slice(1).map(([p, files]) => ({ preset: p, files })),
    unrecognized,
  };
}

/** Files past the peek limit at the same depth and extension as a messages file: more messages. */
function judgedByPlace(rest: readonly string[], mine: Array<{ rel: string; what: Recognized }>) {
  const shape = (rel: string) => `${rel.split('/').length}:${path.posix.extname(rel).toLowerCase()}`;
  const model = new Map(mine.filter((f) => f.what.kind === 'messages').map((f) => [shape(f.rel), f.what]));
  return rest.flatMap((rel) => {
    const what = model.get(shape(rel));
    return what === undefined ? [] : [{ rel, what }];
  });
}
