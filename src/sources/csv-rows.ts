/**
 * csv-parse's rows as SourceItems: names the fields from the header, numbers lines and record slots,
 * and turns what csv-parse could not read into problems.
 *
 * Line numbers are counted here, not taken from csv-parse's `info`: `info.lines` counts a CRLF
 * inside a quoted field as two lines (7.0.3), and `info: true` / `on_record` build two info objects
 * per record, which halves the parse rate. With `skip_empty_lines` off every line belongs to some
 * record (a blank line arrives as `['']`), so a record starts one line after the previous one ends,
 * and it ends after as many lines as its fields hold `\n`s.
 */
import type { JsonObject, SourceItem } from '../entities/types.js';
import { MAX_RECORD_CHARS, type ParsedRows } from './csv-parse-job.js';
import { lineSpan, utf8Problem } from './source-items.js';

export class CsvRows {
  /** Lines with invalid UTF-8, ascending; queued before the bytes reach csv-parse. */
  readonly badLines: number[] = [];
  sawHeader = false;
  /** The header row could not be read: the file is not read. */
  stopped = false;
  /** The line the next row starts on. */
  nextLine = 1;
  private readonly items: SourceItem[] = [];
  /** Field names by column; undefined for a column whose values are ignored. */
  private names: (string | undefined)[] = [];
  private ordinal = 0;
  private headerBreak = '';

  /** `from`: read on from the middle of the file, whose rows there start on that line and slot. */
  constructor(
    private readonly file: string,
    private readonly from?: { line: number; ordinal: number },
  ) {}

  /**
   * A block's rows (taken in block order) as items. A row csv-parse could not read becomes an
   * `input.csv-syntax` problem in its slot, and the next row is taken to start on the line after its
   * first: the caller hands that line on to a new parser (read-csv.ts).
   */
  take(parsed: ParsedRows): SourceItem[] {
    if (this.stopped) return [];
    for (const record of parsed.rows) this.add(record);
    if (parsed.error !== undefined) this.broken(csvErrorReason(parsed.code, parsed.error));
    return this.items.splice(0);
  }

  /** The header's problem, once the file's last line is known. */
  stopProblem(lastLine: number): SourceItem[] {
    const lost = `nothing in the file could be read: ${lineSpan(1, lastLine)}`;
    const message = `the header row could not be read: ${this.headerBreak}; ${lost}`;
    return [{ kind: 'problem', file: this.file, line: 1, rule: 'input.csv-syntax', message, fatalForFile: true }];
  }

  private broken(reason: string): void {
    const line = this.nextLine;
    if (!this.sawHeader) {
      this.stopped = true;
      this.headerBreak = reason;
      return;
    }
    this.nextLine = line + 1;
    const message = `${reason}: line ${line} could not be read as a row; reading goes on at line ${line + 1}`;
    const ordinal = this.ordinal++;
    this.items.push({ kind: 'problem', file: this.file, line, ordinal, rule: 'input.csv-syntax', message });
  }

  private add(record: string[]): void {
    const start = this.nextLine;
    const end = start + countNewlines(record);
    this.nextLine = end + 1;
    const badLine = this.takeBadLine(start, end);
    if (record.length === 1 && record[0].trim() === '' && badLine === undefined) return; // a blank line
    if (!this.sawHeader) {
      this.sawHeader = true;
      if (badLine !== undefined) this.items.push(utf8Problem(this.file, badLine));
      this.readHeader(record, start);
      if (this.from !== undefined) {
        this.nextLine = this.from.line;
        this.ordinal = this.from.ordinal;
      }
      return;
    }
    const ordinal = this.ordinal++;
    if (badLine !== undefined) {
      this.items.push(utf8Problem(this.file, badLine, ordinal));
    } else if (record.length !== this.names.length) {
      this.items.push({
        kind: 'problem',
        file: this.file,
        line: start,
        ordinal,
        rule: 'input.csv-columns',
        message: `row has ${record.length} fields; header has ${this.names.length}`,
      });
    } else {
      const names = this.names;
      const value: JsonObject = {};
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        // An empty cell means "no value": sending "" would overwrite or fail validation.
        if (name !== undefined && record[i] !== '') value[name] = record[i];
      }
      this.items.push({ kind: 'record', value, file: this.file, line: start, ordinal });
    }
  }

  private takeBadLine(start: number, end: number): number | undefined {
    const bad = this.badLines;
    while (bad.length > 0 && bad[0] < start) bad.shift();
    if (bad.length === 0 || bad[0] > end) return undefined;
    const line = bad[0];
    while (bad.length > 0 && bad[0] <= end) bad.shift();
    return line;
  }

  private readHeader(record: string[], line: number): void {
    const seen = new Set<string>();
    this.names = record.map((raw, index) => {
      const name = raw.trim();
      const reason =
        name === ''
          ? `column ${index + 1} has no name`
          : name === '__proto__'
            ? `column ${index + 1} is named "__proto__"`
            : seen.has(name)
              ? `column ${index + 1} repeats the name "${name}"`
              : undefined;
      seen.add(name);
      if (reason === undefined) return name;
      this.items.push({
        kind: 'problem',
        file: this.file,
        line,
        rule: 'input.csv-header',
        message: `${reason}; its values are ignored`,
      });
      return undefined;
    });
  }
}

/** What went wrong, in words that say what to fix; csv-parse's own line numbers are left out (see above). */
function csvErrorReason(code: string | undefined, message: string): string {
  switch (code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quote opened in this row never closes';
    case 'CSV_MAX_RECORD_SIZE':
      return `a quote opened in this row does not close within ${MAX_RECORD_CHARS / (1024 * 1024)} MB of text`;
    case 'CSV_INVALID_CLOSING_QUOTE': {
      const got = /got "(.*)" at line/.exec(message)?.[1];
      const after = got === undefined ? 'text' : `"${got}"`;
      return `a closing quote is followed by ${after} (a quote inside a quoted field is written "")`;
    }
    case 'INVALID_OPENING_QUOTE':
      return 'a quote inside a field that does not start with one (quote the field, and write the quote as "")';
    default:
      return `CSV syntax error: ${message.replace(/ at line \d+/, '')}`;
  }
}

function countNewlines(record: string[]): number {
  let count = 0;
  for (const field of record) {
    for (let at = field.indexOf('\n'); at >= 0; at = field.indexOf('\n', at + 1)) count++;
  }
  return count;
}
