/**
 * JSON documents (an array, an id-keyed object or the API wrapper; see json-records.ts), streamed.
 *
 * stream-json's tokens carry no positions, so the tokenizer (`jsonParser`, the parser without its
 * Buffer-decoding front) is fed one line at a time: every token a call returns comes from that line
 * (the tokenizer only holds back an unfinished lexeme at the end of its input, and a piece ends
 * with its newline), so a record's line is the line of the piece that produced its first token.
 * Lines longer than PIECE_CHARS go in several pieces that all carry the same line number.
 */
import { jsonParser } from 'stream-json/core/parser.js';
import type { Token } from 'stream-json/parser.js';
import type { SourceItem } from '../entities/types.js';
import { JsonRecords } from './json-records.js';
import { CorruptGzipError, readBlocks } from './read-blocks.js';
import { emptyFileProblem, gzipProblem, isBlank, utf8Problem } from './source-items.js';
import type { ReadOptions, ResolvedFile } from './types.js';

const PIECE_CHARS = 64 * 1024;
const CUT_LONG_LINES_AT = 1024 * 1024;
/** stream-chain's "no output" marker, a registered symbol: no need to import stream-chain itself. */
const NONE: unique symbol = Symbol.for('object-stream.none') as never;

type Tokenizer = (input: string | typeof NONE) => { values: Token[] } | typeof NONE;

export async function* readJsonRecords(file: ResolvedFile, options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  const { signal } = options;
  const parse = jsonParser({ packValues: true, streamValues: false }) as unknown as Tokenizer;
  const records = new JsonRecords(file.display, options.entity);
  const items = records.items;
  /** Non-blank text before the first token: "tru" at EOF is a syntax error, not an empty file. */
  let sawText = false;

  const syntaxProblem = (error: unknown, atEnd = false): SourceItem => {
    const detail = (error as Error).message.replace(/^Parser (cannot parse input: )?/, '');
    return {
      kind: 'problem',
      file: file.display,
      line: records.line,
      rule: 'input.json-syntax',
      message: atEnd
        ? `invalid JSON: the file ends before the document does (${detail})`
        : `invalid JSON: ${detail}; the rest of the file is not read`,
      fatalForFile: true,
    };
  };

  try {
    for await (const block of readBlocks(file, { signal, cutLongLinesAt: CUT_LONG_LINES_AT })) {
      const text = block.bytes.toString('utf8');
      const badLines = block.badLines;
      let badIndex = 0;
      let line = block.firstLine;
      for (let start = 0; start < text.length; ) {
        const newline = text.indexOf('\n', start);
        let end = newline < 0 ? text.length : newline + 1;
        if (end - start > PIECE_CHARS) end = start + PIECE_CHARS;
        const lineBad = badLines !== undefined && badLines[badIndex] === line;
        if (lineBad) records.beginBadLine(line);
        else records.line = line;
        if (!sawText && !records.sawToken) sawText = !isBlank(text, start, end);
        try {
          const result = parse(text.slice(start, end));
          if (result !== NONE) records.take(result.values);
        } catch (error) {
          if (lineBad) items.push(utf8Problem(file.display, line));
          items.push(syntaxProblem(error));
          yield items.splice(0);
          return;
        }
        if (lineBad) records.endBadLine();
        if (records.fatal) {
          yield items.splice(0);
          return;
        }
        if (end === newline + 1) {
          line++;
          if (lineBad) badIndex++;
        }
        start = end;
      }
      if (signal?.aborted) return;
      if (items.length > 0) yield items.splice(0);
    }
  } catch (error) {
    if (!(error instanceof CorruptGzipError)) throw error;
    yield [...items.splice(0), gzipProblem(file.display, error)];
    return;
  }
  if (signal?.aborted) return;

  if (!records.sawToken && !sawText) {
    yield [emptyFileProblem(file.display)];
    return;
  }
  try {
    const result = parse(NONE);
    if (result !== NONE) records.take(result.values);
    records.finish();
  } catch (error) {
    items.push(syntaxProblem(error, true));
  }
  if (items.length > 0) yield items.splice(0);
}
