// Counts the records of an input file as written, without the tool's readers, for
// test/accounting.e2e.test.mjs: where each record starts (line, column), so a problem that says
// "nothing from line 14, column 3 on could be read" can be checked against the records it covers.
import { constants, gunzipSync } from 'node:zlib';

/**
 * @typedef {{ starts: Array<[number, number]>, lastLine: number }} Written
 * `starts`: the line and column (1-based, in characters) each record starts at; `lastLine`: the
 * file's last line (a newline at the very end starts none).
 */

const ENTITIES = new Set(['users', 'groups', 'members', 'messages']);

/** @returns {Written} */
export function writtenRecords(name, bytes, entity) {
  let data = bytes;
  if (name.endsWith('.gz')) data = gunzipTolerant(bytes);
  let text = data.toString('utf8');
  if (text.startsWith('\ufeff')) text = text.slice(1);
  const format = name.replace(/\.gz$/, '').split('.').pop();
  const lastLine = text === '' ? 1 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const starts = format === 'csv' ? csvRows(text) : format === 'json' ? jsonRecords(text, entity) : jsonLines(text);
  return { starts, lastLine };
}

/** What a gzip file holds up to where it breaks: nothing when it is not gzip at all. */
function gunzipTolerant(bytes) {
  try {
    return gunzipSync(bytes);
  } catch {
    try {
      return gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      return Buffer.alloc(0);
    }
  }
}

const isBlank = (s) => /^[ \t\r\n]*$/.test(s);

/** NDJSON: every line holding more than whitespace is a record (or stands for one). */
function jsonLines(text) {
  const starts = [];
  text.split('\n').forEach((line, i) => {
    if (!isBlank(line)) starts.push([i + 1, 1]);
  });
  return starts;
}

/**
 * CSV, split tolerantly: a row goes on over newlines while its quotes are unbalanced, and a quote
 * that never closes costs its own line only. The first row with content is the header.
 */
function csvRows(text) {
  const lines = text.split('\n');
  const quotes = (s) => s.split('"').length - 1;
  const starts = [];
  let header = false;
  for (let i = 0; i < lines.length; ) {
    let end = i;
    let open = quotes(lines[i]) % 2 === 1;
    while (open && end + 1 < lines.length) {
      end++;
      if (quotes(lines[end]) % 2 === 1) open = false;
    }
    if (open) end = i;
    const row = lines.slice(i, end + 1).join('\n');
    if (!isBlank(row)) {
      if (header) starts.push([i + 1, 1]);
      header = true;
    }
    i = end + 1;
  }
  return starts;
}

/** JSON: the records of an array, an id-keyed object or the API's wrapper; a broken document is scanned. */
function jsonRecords(text, entity) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return topLevelValues(text);
  }
  if (Array.isArray(doc)) return doc.map(() => [0, 0]);
  if (typeof doc !== 'object' || doc === null) return [];
  const [first] = Object.keys(doc);
  const wrapper = first !== undefined && ENTITIES.has(first) && typeof doc[first] === 'object' && doc[first] !== null;
  const records = wrapper ? (doc[entity] ?? []) : doc;
  return Object.keys(records).map(() => [0, 0]);
}

/**
 * Where each value of the top-level array (or each key of the top-level object) starts, for a
 * document JSON.parse refuses: strings and brackets are followed, commas are not needed.
 */
function topLevelValues(text) {
  const starts = [];
  let depth = 0;
  let top = '';
  let inString = false;
  let escaped = false;
  let scalar = false;
  let afterColon = false;
  let line = 1;
  let column = 0;
  for (const c of text) {
    column += c.length;
    if (c === '\n') {
      line++;
      column = 0;
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      scalar = false;
      continue;
    }
    if (depth === 1) {
      if (c === ',' || c === ':') {
        scalar = false;
        afterColon = c === ':';
        continue;
      }
      const record = top === '[' ? !scalar && c !== ']' : c === '"' && !afterColon;
      if (record) starts.push([line, column]);
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth === 0) top = c;
      depth++;
    } else if (c === ']' || c === '}') depth--;
    else if (depth === 1) scalar = true;
  }
  return starts;
}

/** Whether a record starting at `start` lies at or after `from` (both [line, column]). */
export function isFrom(start, from) {
  return start[0] > from[0] || (start[0] === from[0] && start[1] >= from[1]);
}
