/**
 * The inputs a preset hands the pipeline: over one file of the export (read again on every call,
 * record by record), or over records the pre-pass already built (groups and members that exist
 * only in what the messages say). An input numbers what it yields from 0 on every read, in the same
 * order, so resume finds the same record at the same ordinal; a piece that stood for a value (not
 * valid JSON, not UTF-8) takes a slot too (when the input reports them). Also the pre-pass's view of
 * a file. Files are read through the shared read layer (sources/read-pieces.ts).
 */
import { ENTITIES } from '../../entities/index.js';
import { ENTITY_ORDER, type EntityName, type JsonObject, type SourceItem } from '../../entities/types.js';
import type { EntityPlan, RecordInput } from '../../sources/plan.js';
import type { PresetContext } from './context.js';
import type { ByteSource } from '../../sources/read-blocks.js';
import { readPieces, type JsonPath, type Piece, type PieceLayout } from '../../sources/read-pieces.js';
import type { ExportTree } from './export-tree.js';
import { isObject, problemItem, recordItem, shapeProblem } from './items.js';

export interface Produced {
  value: JsonObject;
  skip?: string;
  /** A user's e-mail, for a `userMap` keyed by e-mail; not sent. */
  email?: string;
}

/** Walks into the top-level array only: its elements are the records. */
export const TOP_ARRAY = (path: JsonPath): boolean => path.length === 0;

export interface FileInputSpec {
  ctx: PresetContext;
  rel: string;
  display: string;
  /** Which containers to walk into (sources/json-scan.ts); `'lines'` reads JSON Lines. */
  descend: PieceLayout;
  /** Report bad pieces as problem slots here (an index file read by two inputs reports them once). */
  reportProblems: boolean;
  /** Records for one object (none, one, or several: a channel's members). */
  map(value: JsonObject, line: number, path: JsonPath): Produced[];
  /** Which pieces are this input's, by their place (a messages file's `messages`, not its `channel`); default: all. */
  accept?(path: JsonPath): boolean;
}

/** A file of the export as the read layer's byte source, named as records name it. */
export function treeBytes(tree: ExportTree, rel: string): ByteSource {
  return { display: tree.where(rel), open: () => tree.open(rel) };
}

export function pieces(
  ctx: PresetContext,
  rel: string,
  descend: PieceLayout,
  signal?: AbortSignal,
): AsyncGenerator<Piece> {
  ctx.read?.add(rel);
  return readPieces(treeBytes(ctx.tree, rel), descend, signal);
}

export function fileInput(spec: FileInputSpec): RecordInput {
  const { ctx, rel } = spec;
  ctx.read?.add(rel);
  const file = ctx.tree.where(rel);
  const input: RecordInput = {
    display: spec.display,
    async *read({ signal }): AsyncGenerator<SourceItem> {
      let ordinal = 0;
      for await (const piece of pieces(ctx, rel, spec.descend, signal)) {
        // A problem about the whole file has no place to accept it by.
        if (spec.accept !== undefined && !(piece.ok === false && !piece.slot) && !spec.accept(piece.path)) continue;
        if (!piece.ok) {
          if (spec.reportProblems || piece.fatal) yield problemItem(piece, file, piece.slot ? ordinal++ : undefined);
          continue;
        }
        if (!isObject(piece.value)) {
          if (spec.reportProblems)
            yield shapeProblem(
              file,
              piece.line,
              ordinal++,
              `expected an object, found ${JSON.stringify(piece.value)?.slice(0, 40)}`,
            );
          continue;
        }
        for (const produced of spec.map(piece.value, piece.line, piece.path)) {
          const item = recordItem(produced.value, file, piece.line, ordinal++, produced.skip);
          if (produced.email !== undefined) item.email = produced.email;
          yield item;
        }
      }
    },
  };
  const disk = ctx.tree.diskPath(rel);
  if (disk !== undefined) input.path = disk;
  return input;
}

/** The objects of a file for the pre-pass: bad pieces are left to the inputs to report. */
export async function* objectsIn(
  ctx: PresetContext,
  rel: string,
  descend: PieceLayout,
): AsyncGenerator<{ value: JsonObject; line: number; path: JsonPath }> {
  for await (const piece of pieces(ctx, rel, descend)) {
    if (piece.ok && isObject(piece.value)) {
      yield { value: piece.value, line: piece.line, path: piece.path };
      if (ctx.idMap.needsFlush) await ctx.idMap.flush();
    }
  }
}

/** The first top-level key of a JSON object file (how Sendbird's and Discord's files are told apart), or undefined. */
export async function firstKey(ctx: PresetContext, rel: string): Promise<string | number | undefined> {
  try {
    // Walking one level into the first value as well: a first key holding a 2 GB array is not cut out whole.
    // Read past the `pieces` of the preset: a file looked at to tell what it is is not read yet.
    for await (const piece of readPieces(treeBytes(ctx.tree, rel), (p) => p.length <= 1)) {
      if (piece.ok || piece.slot || piece.fatal) return piece.path[0];
    }
  } catch {
    // An unreadable file is no file of this preset's.
  }
  return undefined;
}

export interface ListEntry {
  value: JsonObject;
  file: string;
  line: number;
  skip?: string;
}

/** Records built during the pre-pass, as an input (kept small: one entry per group or membership). */
export function listInput(display: string, entries: readonly ListEntry[]): RecordInput {
  return {
    display,
    async *read(): AsyncGenerator<SourceItem> {
      let ordinal = 0;
      for (const e of entries) yield recordItem(e.value, e.file, e.line, ordinal++, e.skip);
    },
  };
}

/** The four phases of a preset run, in import order, each with its inputs. */
export function plansOf(inputs: Record<EntityName, RecordInput[]>): EntityPlan[] {
  // Mapping is the identity (presets emit the API's field names) and the deletion markers are the
  // defaults (`deletedAt` = soft-deleted, `deleted: "permanent"`), so no source settings are needed.
  return ENTITY_ORDER.map((name) => ({ entity: ENTITIES[name], source: {}, inputs: inputs[name] }));
}
