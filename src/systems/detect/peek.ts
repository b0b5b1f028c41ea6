/**
 * A bounded look at the start of one file of an export, through the presets' read layer: the first
 * values of a JSON document rebuilt as far as they were read (containers walked to a small depth,
 * deeper values whole), or the first lines of a JSON Lines file. A 10 GB export is recognised from
 * a few hundred values per file, never by reading a file whole.
 */
import type { JsonObject } from '../../entities/types.js';
import type { JsonPath } from '../../sources/read-pieces.js';
import type { ExportTree } from '../shared/export-tree.js';
import { pieces } from '../shared/inputs.js';
import { isObject } from '../shared/items.js';
import { detectLayout, type FileShape } from '../shared/file-shape.js';

/** Pieces looked at per JSON document, and lines per JSON Lines file. */
const MAX_PIECES = 400;
const MAX_LINES = 40;
/** Containers deeper than this are taken whole (a message's reactions), shallower ones walked. */
const WALK_DEPTH = 4;

export interface Peek {
  rel: string;
  layout: FileShape;
  /** The document as far as it was read (`layout` array or document); undefined for lines. */
  head?: unknown;
  /** The first objects of a JSON Lines file. */
  lines?: JsonObject[];
}

/** What the file starts with, or undefined when it is no JSON (a CSV, an image, broken bytes). */
export async function peekFile(tree: ExportTree, rel: string): Promise<Peek | undefined> {
  try {
    const layout = await detectLayout({ tree }, rel);
    if (layout === undefined) return undefined;
    // A tiny context: the read layer needs only the tree.
    const ctx = { tree } as Parameters<typeof pieces>[0];
    if (layout === 'lines') {
      const lines: JsonObject[] = [];
      for await (const piece of pieces(ctx, rel, 'lines')) {
        if (piece.ok && isObject(piece.value)) lines.push(piece.value);
        if (lines.length >= MAX_LINES || (!piece.ok && piece.fatal)) break;
      }
      return { rel, layout, lines };
    }
    let head: unknown = layout === 'array' ? [] : {};
    let seen = 0;
    for await (const piece of pieces(ctx, rel, (p) => p.length < WALK_DEPTH)) {
      if (piece.ok) head = place(head, piece.path, piece.value);
      if (++seen >= MAX_PIECES || (!piece.ok && piece.fatal)) break;
    }
    return { rel, layout, head };
  } catch {
    // An unreadable file is no evidence of any export.
    return undefined;
  }
}

/** Puts a value at its path in the partial document, making the containers on the way. */
function place(root: unknown, path: JsonPath, value: unknown): unknown {
  if (path.length === 0) return value;
  let node = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    if (key === '__proto__') return root;
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = typeof path[i + 1] === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== '__proto__') node[last] = value;
  return root;
}

/** The objects of the first array found at `key` of the head (or the head itself when it is an array). */
export function recordsAt(head: unknown, key?: string): JsonObject[] {
  const list = key === undefined ? head : isObject(head) ? head[key] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** The head's top-level keys in document order (an object's), else none. */
export const topKeys = (head: unknown): string[] => (isObject(head) ? Object.keys(head) : []);
