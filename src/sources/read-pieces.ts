/**
 * Presets' view of the read layer: a file of an export (any byte stream, a zip entry too) as parsed
 * values ("pieces") with their path and line, or the problems that stood in their place. The bytes,
 * the lines and the JSON go through the same readers as a plain source (read-blocks.ts,
 * splitJsonLines, json-scan.ts, read-file.ts), so the same bytes give the same problems: a line of
 * invalid UTF-8 is `input.utf8` here as in an NDJSON file. Presets decide which pieces are records
 * of an input and number them.
 */
import type { SourceProblem } from '../entities/types.js';
import { JsonBlockReader } from './json-blocks.js';
import { jsonErrorPlace, jsonErrorReason } from '../json/json-error.js';
import { TAKE, WALK, type Decision, type JsonPath } from './json-scan.js';
import { JSON_CUT_LONG_LINES_AT } from './read-json.js';
import type { Block, ByteSource } from './read-blocks.js';
import { readFileItems, type BlockReader } from './read-file.js';
import { splitJsonLines, type JsonLineSink } from './read-ndjson.js';
import { UTF8_MESSAGE } from './source-items.js';

export type { JsonPath } from './json-scan.js';

export type Piece =
  | { ok: true; value: unknown; path: JsonPath; line: number }
  /**
   * `slot`: it stands where a value was (a bad line, a value that is not JSON) and takes its ordinal.
   * `fatal`: nothing after it is read. Neither: about the file (empty, invalid UTF-8 between values).
   */
  | { ok: false; path: JsonPath; line: number; rule: string; message: string; fatal: boolean; slot: boolean };

export type ProblemPiece = Extract<Piece, { ok: false }>;

/**
 * Which containers of a JSON document to walk into; every other value is a piece. `'lines'`: JSON
 * Lines. `{sequence}`: documents one after another (each path starts with the document's number).
 */
export type PieceLayout = ((path: JsonPath) => boolean) | 'lines' | { sequence: (path: JsonPath) => boolean };

export async function* readPieces(
  source: ByteSource,
  layout: PieceLayout,
  signal?: AbortSignal,
): AsyncGenerator<Piece> {
  const reader =
    layout === 'lines'
      ? new LinePieces()
      : typeof layout === 'function'
        ? new JsonPieces(layout)
        : new JsonPieces(layout.sequence, true);
  const options = { signal, cutLongLinesAt: layout === 'lines' ? undefined : JSON_CUT_LONG_LINES_AT };
  for await (const batch of readFileItems(source, reader, options)) {
    for (const item of batch) {
      if (signal?.aborted) return;
      yield 'ok' in item ? item : fileProblem(item);
    }
  }
}

function fileProblem(p: SourceProblem): ProblemPiece {
  const fatal = p.fatalForFile === true;
  return { ok: false, path: [], line: p.line, rule: p.rule, message: p.message, fatal, slot: false };
}

function slotProblem(path: JsonPath, line: number, rule: string, message: string): ProblemPiece {
  return { ok: false, path, line, rule, message, fatal: false, slot: true };
}

/** One value per line; a bad line costs that line only. Paths are `[index]`, counting non-blank lines. */
class LinePieces implements BlockReader<Piece>, JsonLineSink {
  sawContent = false;
  readonly stopped = false;
  private pieces: Piece[] = [];
  private index = 0;

  block(block: Block): Piece[] {
    this.sawContent = splitJsonLines(block, this) || this.sawContent;
    const pieces = this.pieces;
    this.pieces = [];
    return pieces;
  }

  end(): Piece[] {
    return [];
  }

  value(value: unknown, line: number): void {
    this.pieces.push({ ok: true, value, path: [this.index++], line });
  }

  bad(rule: string, message: string, line: number): void {
    this.pieces.push(slotProblem([this.index++], line, rule, message));
  }
}

/** The values of a JSON document at the paths `descend` does not walk into; one bad value costs itself. */
class JsonPieces extends JsonBlockReader<Piece> {
  constructor(
    private readonly descend: (path: JsonPath) => boolean,
    sequence = false,
  ) {
    super({ sequence });
  }

  decide(path: JsonPath, container: boolean): Decision {
    return container && this.descend(path) ? WALK : TAKE;
  }

  take(path: JsonPath, text: string, line: number, endLine: number, column: number): void {
    const badLine = this.badLineOf(line, endLine);
    const at = path.slice();
    if (badLine !== 0) {
      this.items.push(slotProblem(at, badLine, 'input.utf8', UTF8_MESSAGE));
      return;
    }
    try {
      this.items.push({ ok: true, value: JSON.parse(text), path: at, line });
    } catch (error) {
      const place = jsonErrorPlace(text, line, column);
      const message = `invalid JSON at line ${place.line}, column ${place.column}: ${jsonErrorReason(error as Error)}`;
      this.items.push(slotProblem(at, place.line, 'input.json-syntax', message));
    }
  }

  protected strayLine(line: number): Piece {
    return { ok: false, path: [], line, rule: 'input.utf8', message: UTF8_MESSAGE, fatal: false, slot: false };
  }

  protected broken(line: number, message: string): Piece {
    return { ok: false, path: [], line, rule: 'input.json-syntax', message, fatal: true, slot: false };
  }
}
