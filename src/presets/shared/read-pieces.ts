/**
 * The read layer every preset shares: a file of the export -> parsed values ("pieces") with their
 * path and line, or the problem that stood in their place. Presets decide which pieces are records
 * of an input and number them; SourceItems are made with `recordItem` / `problemItem`.
 */
import { StringDecoder } from 'node:string_decoder';
import type { JsonObject, SourceItem, SourceProblem, SourceRecord } from '../../entities/types.js';
import type { ExportTree } from './export-tree.js';
import { JsonScanError, scanJson, type JsonPath } from './json-scan.js';

export type Piece =
  | { ok: true; value: unknown; path: JsonPath; line: number }
  | { ok: false; path: JsonPath; line: number; rule: string; message: string; fatal: boolean };

/** Values of a JSON file at the paths `descend` does not walk into (see json-scan.ts). */
export async function* readJsonPieces(
  tree: ExportTree,
  rel: string,
  descend: (path: JsonPath) => boolean,
  signal?: AbortSignal,
): AsyncGenerator<Piece> {
  const stream = await tree.open(rel);
  try {
    for await (const hit of scanJson(stream as AsyncIterable<Buffer>, descend)) {
      if (signal?.aborted) return;
      yield parsePiece(hit.text, hit.path, hit.line);
    }
  } catch (error) {
    if (!(error instanceof JsonScanError)) throw error;
    yield { ok: false, path: [], line: error.line, rule: 'input.json-syntax', message: `invalid JSON: ${error.message}; the rest of the file is not read`, fatal: true };
  } finally {
    stream.destroy();
  }
}

/** One value per line (JSON Lines); a bad line costs that line only. Paths are `[lineIndex]`. */
export async function* readLinePieces(tree: ExportTree, rel: string, signal?: AbortSignal): AsyncGenerator<Piece> {
  const stream = await tree.open(rel);
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let line = 0;
  let index = 0;
  try {
    const take = function* (text: string, final: boolean): Generator<Piece> {
      let start = 0;
      for (;;) {
        const end = text.indexOf('\n', start);
        if (end < 0 && !final) break;
        const stop = end < 0 ? text.length : end;
        line++;
        let body = text.slice(start, stop);
        if (line === 1 && body.charCodeAt(0) === 0xfeff) body = body.slice(1);
        if (body.trim() !== '') yield parsePiece(body, [index++], line);
        if (end < 0) return;
        start = end + 1;
      }
      carry = text.slice(start);
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (signal?.aborted) return;
      yield* take(carry + decoder.write(chunk), false);
    }
    yield* take(carry + decoder.end(), true);
  } finally {
    stream.destroy();
  }
}

function parsePiece(text: string, path: JsonPath, line: number): Piece {
  try {
    return { ok: true, value: JSON.parse(text), path, line };
  } catch (error) {
    return { ok: false, path, line, rule: 'input.json-syntax', message: `invalid JSON: ${(error as Error).message}`, fatal: false };
  }
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function recordItem(value: JsonObject, file: string, line: number, ordinal: number, skip?: string): SourceRecord {
  const item: SourceRecord = { kind: 'record', value, file, line, ordinal };
  if (skip !== undefined) item.skip = skip;
  return item;
}

/** A piece that is not a record: a slot (ordinal) unless it ended the file. */
export function problemItem(piece: Extract<Piece, { ok: false }>, file: string, ordinal: number | undefined): SourceProblem {
  const item: SourceProblem = { kind: 'problem', file, line: piece.line, rule: piece.rule, message: piece.message };
  if (piece.fatal) item.fatalForFile = true;
  else if (ordinal !== undefined) item.ordinal = ordinal;
  return item;
}

/** A value of the wrong shape (a string where a message object belongs): one bad slot. */
export function shapeProblem(file: string, line: number, ordinal: number, message: string): SourceItem {
  return { kind: 'problem', file, line, ordinal, rule: 'input.not-object', message };
}
