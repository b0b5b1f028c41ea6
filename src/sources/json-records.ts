/**
 * Finds the records in a stream-json token stream and assembles them one at a time, so memory
 * holds one record, never the file. Accepted shapes:
 *   [ {...}, ... ]                                  records in an array
 *   { "<id>": {...}, ... }                          id-keyed: the key becomes SourceRecord.key
 *   { "users": { "<id>": {...} } } / { "users": [...] }   the API's own request body
 * The shape is decided by the first key of a top-level object: an entity name whose value is an
 * object or array means the wrapper. (A uid literally named "users" would be misread; accepted.)
 */
import Assembler from 'stream-json/assembler.js';
import type { Token } from 'stream-json/parser.js';
import type { EntityName, SourceItem } from '../entities/types.js';
import { ENTITY_ORDER } from '../entities/types.js';
import { describeValue, utf8Problem } from './source-items.js';

const ENTITY_NAMES: ReadonlySet<string> = new Set(ENTITY_ORDER);

export class JsonRecords {
  /** Line of the tokens being taken; the reader sets it before each piece. */
  line = 1;
  /** Set when the file cannot go on (a top-level scalar). */
  fatal = false;
  sawToken = false;
  readonly items: SourceItem[] = [];

  private readonly asm = new Assembler();
  private inRecord = false;
  private recordLine = 0;
  private recordKey: string | undefined;
  /** Line of invalid UTF-8 inside the record being assembled; 0 when none. */
  private recordBadLine = 0;
  private ordinal = 0;

  /** Open containers outside any record. */
  private depth = 0;
  /** Depth whose direct values are records; -1 while not inside a record container. */
  private recordDepth = -1;
  private topKind: 'array' | 'object' | undefined;
  private wrapper: boolean | undefined;
  private topKey: string | undefined;
  /** Open containers of a value being skipped (another entity's part of a wrapper). */
  private skipDepth = 0;
  private readonly wrapperKeys: string[] = [];

  private lineBad = false;
  private lineTouched = false;

  constructor(
    private readonly file: string,
    private readonly entity: EntityName | undefined,
  ) {}

  take(tokens: Token[]): void {
    const asm = this.asm;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      if (this.inRecord) {
        asm.consume(token);
        if (asm.done) this.finishRecord();
      } else {
        this.route(token);
      }
    }
    this.sawToken ||= tokens.length > 0;
  }

  /** The slow path for a line with invalid UTF-8: the record it touches becomes a problem. */
  beginBadLine(line: number): void {
    this.line = line;
    this.lineBad = true;
    this.lineTouched = this.inRecord;
  }

  endBadLine(): void {
    this.lineBad = false;
    if (this.inRecord) {
      if (this.recordBadLine === 0) this.recordBadLine = this.line;
    } else if (!this.lineTouched) {
      this.items.push(utf8Problem(this.file, this.line));
    }
  }

  /** Problems only visible once the whole file has been seen. */
  finish(): void {
    const entity = this.entity;
    if (this.wrapper === true && entity !== undefined && !this.wrapperKeys.includes(entity)) {
      this.items.push(
        this.problem(
          'input.json-shape',
          `no "${entity}" key at the top level (found ${this.wrapperKeys.map((k) => `"${k}"`).join(', ')})`,
        ),
      );
    }
  }

  private route(token: Token): void {
    const name = token.name;
    if (this.skipDepth > 0) {
      if (name === 'startObject' || name === 'startArray') this.skipDepth++;
      else if (name === 'endObject' || name === 'endArray') this.skipDepth--;
      return;
    }
    if (this.depth === this.recordDepth) {
      if (name === 'keyValue') this.recordKey = token.value;
      else if (name === 'endObject' || name === 'endArray') this.closeContainer();
      else this.startRecord(token);
      return;
    }
    if (this.depth === 0) {
      if (name === 'startArray' || name === 'startObject') {
        this.depth = 1;
        this.topKind = name === 'startArray' ? 'array' : 'object';
        if (this.topKind === 'array') this.recordDepth = 1;
      } else {
        this.items.push(
          this.problem('input.json-shape', 'the file holds a single value; expected an array or an object of records', true),
        );
        this.fatal = true;
      }
      return;
    }
    // depth 1 of a top-level object whose records are not yet decided, or of a wrapper
    if (name === 'keyValue') {
      this.topKey = token.value;
      return;
    }
    if (name === 'endObject') {
      this.depth = 0;
      return;
    }
    const key = this.topKey ?? '';
    const isContainer = name === 'startObject' || name === 'startArray';
    if (this.wrapper === undefined) {
      this.wrapper = isContainer && ENTITY_NAMES.has(key);
      if (!this.wrapper) {
        this.recordDepth = 1;
        this.recordKey = key;
        this.startRecord(token);
        return;
      }
    }
    if (ENTITY_NAMES.has(key)) this.wrapperKeys.push(key);
    else this.items.push(this.problem('input.json-shape', `top-level key "${key}" is not an entity name; skipped`));
    if (!isContainer) return;
    if (ENTITY_NAMES.has(key) && (this.entity === undefined || key === this.entity)) {
      this.depth = 2;
      this.recordDepth = 2;
    } else {
      this.skipDepth = 1;
    }
  }

  private closeContainer(): void {
    this.depth--;
    this.recordDepth = -1;
  }

  private startRecord(token: Token): void {
    this.recordLine = this.line;
    this.recordBadLine = this.lineBad ? this.line : 0;
    this.lineTouched = true;
    this.asm.consume(token);
    if (this.asm.done) this.finishRecord();
    else this.inRecord = true;
  }

  private finishRecord(): void {
    this.inRecord = false;
    const value = this.asm.current;
    const key = this.recordKey;
    this.recordKey = undefined;
    const ordinal = this.ordinal++;
    const badLine = this.recordBadLine || (this.lineBad ? this.line : 0);
    if (badLine !== 0) {
      this.items.push(utf8Problem(this.file, badLine, ordinal));
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const item: SourceItem = { kind: 'record', value: value as Record<string, unknown>, file: this.file, line: this.recordLine, ordinal };
      if (key !== undefined) item.key = key;
      this.items.push(item);
    } else {
      const where = key === undefined ? 'element' : `value of "${key}"`;
      this.items.push({
        kind: 'problem',
        file: this.file,
        line: this.recordLine,
        ordinal,
        rule: 'input.not-object',
        message: `${where} is ${describeValue(value)}, not an object`,
      });
    }
  }

  private problem(rule: string, message: string, fatalForFile = false): SourceItem {
    const item: SourceItem = { kind: 'problem', file: this.file, line: this.line, rule, message };
    if (fatalForFile) item.fatalForFile = true;
    return item;
  }
}
