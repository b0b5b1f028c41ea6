/**
 * JSON documents, streamed through the one JSON scanner (json-scan.ts): the records are cut out one
 * at a time, so memory holds one record, never the file. Accepted shapes:
 *   [ {...}, ... ]                                  records in an array
 *   { "<id>": {...}, ... }                          id-keyed: the key becomes SourceRecord.key
 *   { "<id>": "<value>", ... }                      with keyedScalars (id maps): records `{value}`
 *   { "users": { "<id>": {...} } } / { "users": [...] }   the API's own request body
 * The shape is decided by the first key of a top-level object: an entity name whose value is an
 * object or array means the wrapper. (A uid literally named "users" would be misread; accepted.)
 * A record that is not valid JSON costs its own slot (the scanner found where it ends, so the next
 * one is read); a break in the structure around the records ends the file. Both name line and column.
 * Another entity's part of a wrapper is passed over unread: its own reading reports its errors.
 */
import type { EntityName, SourceItem } from '../entities/types.js';
import { ENTITY_ORDER } from '../entities/types.js';
import { JsonBlockReader } from './json-blocks.js';
import { jsonErrorPlace, jsonErrorReason } from '../json/json-error.js';
import { JsonScanError, SKIP, TAKE, WALK, type Decision, type JsonPath } from './json-scan.js';
import { fileBytes } from './read-blocks.js';
import { readFileItems } from './read-file.js';
import { describeValue, utf8Problem } from './source-items.js';
import type { ReadOptions, ResolvedFile } from './types.js';

/** Blocks of a one-line (minified) file are cut here, so it streams too. */
export const JSON_CUT_LONG_LINES_AT = 1024 * 1024;

const ENTITY_NAMES: ReadonlySet<string> = new Set(ENTITY_ORDER);

export function readJsonRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  const reader = new JsonRecordReader(file.display, options.entity, options.keyedScalars === true);
  return readFileItems(fileBytes(file), reader, { signal: options.signal, cutLongLinesAt: JSON_CUT_LONG_LINES_AT });
}

/**
 * The record slots `readJsonRecords` gives the file, for a progress bar's total: the same scan and
 * the same shape decisions, with each record passed over instead of parsed.
 */
export async function countJsonRecords(file: ResolvedFile, options: ReadOptions = {}): Promise<number> {
  const counter = new JsonRecordCounter(file.display, options.entity, options.keyedScalars === true);
  const read = readFileItems(fileBytes(file), counter, {
    signal: options.signal,
    cutLongLinesAt: JSON_CUT_LONG_LINES_AT,
  });
  for await (const _ of read);
  return counter.records;
}

class JsonRecordReader extends JsonBlockReader<SourceItem> {
  private ordinal = 0;
  /** Undefined until the first key of a top-level object says. */
  private wrapper: boolean | undefined;
  private readonly wrapperKeys: string[] = [];

  constructor(
    private readonly file: string,
    private readonly entity: EntityName | undefined,
    private readonly keyedScalars: boolean,
  ) {
    super();
  }

  decide(path: JsonPath, container: boolean, line: number): Decision {
    if (path.length !== 1 || typeof path[0] === 'number') return container && path.length === 0 ? WALK : TAKE;
    // A member of the top-level object: a record, or a part of the API wrapper.
    const key = path[0];
    this.wrapper ??= container && ENTITY_NAMES.has(key);
    if (!this.wrapper) return TAKE;
    if (ENTITY_NAMES.has(key)) this.wrapperKeys.push(key);
    else this.shapeProblem(line, `top-level key "${key}" is not an entity name; skipped`);
    if (!container) return SKIP;
    return ENTITY_NAMES.has(key) && (this.entity === undefined || key === this.entity) ? WALK : SKIP;
  }

  take(path: JsonPath, text: string, line: number, endLine: number, column: number): void {
    let value: unknown;
    if (path.length === 0) {
      // The document is a single value: whatever it is, there are no records.
      try {
        JSON.parse(text);
      } catch (error) {
        const at = jsonErrorPlace(text, line, column);
        this.fail(new JsonScanError(at.line, at.column, jsonErrorReason(error as Error)));
        return;
      }
      this.shapeProblem(line, 'the file holds a single value; expected an array or an object of records', true);
      this.stop();
      return;
    }
    const badLine = this.badLineOf(line, endLine);
    const ordinal = this.ordinal++;
    if (badLine !== 0) {
      this.items.push(utf8Problem(this.file, badLine, ordinal));
      return;
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      const at = jsonErrorPlace(text, line, column);
      const message = `invalid JSON at line ${at.line}, column ${at.column}: ${jsonErrorReason(error as Error)}`;
      this.items.push({ kind: 'problem', file: this.file, line: at.line, ordinal, rule: 'input.json-syntax', message });
      return;
    }
    const last = path[path.length - 1];
    const key = typeof last === 'string' ? last : undefined;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const record = value as Record<string, unknown>;
      const item: SourceItem = { kind: 'record', value: record, file: this.file, line, ordinal };
      if (key !== undefined) item.key = key;
      this.items.push(item);
      return;
    }
    if (this.keyedScalars && key !== undefined && (typeof value !== 'object' || value === null)) {
      this.items.push({ kind: 'record', value: { value }, file: this.file, line, ordinal, key });
      return;
    }
    const where = key === undefined ? 'element' : `value of "${key}"`;
    const message = `${where} is ${describeValue(value)}, not an object`;
    this.items.push({ kind: 'problem', file: this.file, line, ordinal, rule: 'input.not-object', message });
  }

  protected strayLine(line: number): SourceItem {
    return utf8Problem(this.file, line);
  }

  protected broken(line: number, message: string): SourceItem {
    return { kind: 'problem', file: this.file, line, rule: 'input.json-syntax', message, fatalForFile: true };
  }

  protected override finish(): void {
    const entity = this.entity;
    if (this.wrapper === true && entity !== undefined && !this.wrapperKeys.includes(entity)) {
      const found = this.wrapperKeys.map((k) => `"${k}"`).join(', ');
      this.shapeProblem(this.scanner.lastLine, `no "${entity}" key at the top level (found ${found})`);
    }
  }

  private shapeProblem(line: number, message: string, fatalForFile = false): void {
    const item: SourceItem = { kind: 'problem', file: this.file, line, rule: 'input.json-shape', message };
    if (fatalForFile) item.fatalForFile = true;
    this.items.push(item);
  }
}

class JsonRecordCounter extends JsonRecordReader {
  records = 0;

  override decide(path: JsonPath, container: boolean, line: number): Decision {
    const decision = super.decide(path, container, line);
    if (decision !== TAKE || path.length === 0) return decision;
    this.records++;
    return SKIP;
  }
}
