/**
 * The members of one JSON object as text ranges, without building the object.
 *
 * Why: import bodies and answers are maps keyed by record id (`{"<muid>": {...}, ...}`). JSON.parse
 * gives every distinct key a hidden-class transition of its own, so an id-keyed map of 50 records
 * costs about three times its 50 values parsed one by one; at thousands of requests a second that was
 * the largest cost on both sides of the wire. Splitting the map here and parsing each value alone
 * keeps every parsed object on the shape of its neighbours.
 *
 * It checks the object's own syntax (keys, colons, commas, whitespace) strictly, but only finds where
 * each value ends: callers JSON.parse the value ranges they read, which validates them (the client
 * reads a success's verdict from its first bytes and leaves its echoed record unchecked). Any doubt
 * gives `undefined`, and callers then fall back to JSON.parse of the whole text.
 */

/** One member: its key (decoded) and where its value's text starts and ends. */
export interface EntryRange {
  key: string;
  start: number;
  end: number;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const STRUCTURE = /["{}[\]]/g;

const isWhitespace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

function skipWhitespace(text: string, i: number, to: number): number {
  while (i < to && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** Index of the quote closing the string that opens at `start`, or -1. */
function stringEnd(text: string, start: number, to: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0 || i >= to) return -1;
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/** A key's decoded text; undefined when it is not a valid JSON string. */
function keyText(text: string, start: number, end: number): string | undefined {
  for (let i = start + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      try {
        return JSON.parse(text.slice(start, end + 1)) as string;
      } catch {
        return undefined;
      }
    }
    if (c < 32) return undefined;
  }
  return text.slice(start + 1, end);
}

/** Index just past the value that starts at `start`, or -1. Nested text is matched, not validated. */
function valueEnd(text: string, start: number, to: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    const end = stringEnd(text, start, to);
    return end < 0 ? -1 : end + 1;
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    // The regex jumps to the next character that matters; most of a record's text is plain. `test`,
    // not `exec`: exec builds a match array per hit, which was a third of an import's allocations.
    STRUCTURE.lastIndex = start;
    while (STRUCTURE.test(text)) {
      const i = STRUCTURE.lastIndex - 1;
      if (i >= to) break;
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        const end = stringEnd(text, i, to);
        if (end < 0) return -1;
        STRUCTURE.lastIndex = end + 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (--depth === 0) return i + 1;
    }
    return -1;
  }
  let i = start;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isWhitespace(c)) break;
    i++;
  }
  return i > start ? i : -1;
}

/**
 * The members of the object spanning `text[from, to)` (whitespace around it allowed), in text order,
 * duplicates included; undefined when that span is not one object.
 */
export function objectEntries(text: string, from = 0, to = text.length): EntryRange[] | undefined {
  const object = objectAt(text, skipWhitespace(text, from, to), to);
  return object && skipWhitespace(text, object.end, to) === to ? object.entries : undefined;
}

/**
 * For the text `{"<key>": {...}}` (one member whose value is an object), that inner object's members;
 * undefined for any other text. One pass: the inner object is not scanned once more to find its end.
 */
export function innerObjectEntries(text: string, key: string): EntryRange[] | undefined {
  const head = HEAD.exec(text);
  if (head === null || head[1] !== key) return undefined;
  const inner = objectAt(text, head[0].length - 1, text.length);
  if (inner === undefined) return undefined;
  const close = skipWhitespace(text, inner.end, text.length);
  return text.charCodeAt(close) === CLOSE_BRACE && skipWhitespace(text, close + 1, text.length) === text.length
    ? inner.entries
    : undefined;
}

const HEAD = /^[ \t\r\n]*\{[ \t\r\n]*"([A-Za-z]+)"[ \t\r\n]*:[ \t\r\n]*\{/;

/** The object opening at `at`: its members and the index just past its closing brace. */
function objectAt(text: string, at: number, to: number): { entries: EntryRange[]; end: number } | undefined {
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  const entries: EntryRange[] = [];
  let i = skipWhitespace(text, at + 1, to);
  if (text.charCodeAt(i) === CLOSE_BRACE) return { entries, end: i + 1 };
  for (;;) {
    if (i >= to || text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = stringEnd(text, i, to);
    if (keyEnd < 0) return undefined;
    const key = keyText(text, i, keyEnd);
    if (key === undefined) return undefined;
    i = skipWhitespace(text, keyEnd + 1, to);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipWhitespace(text, i + 1, to);
    const end = start < to ? valueEnd(text, start, to) : -1;
    if (end < 0) return undefined;
    entries.push({ key, start, end });
    i = skipWhitespace(text, end, to);
    const c = text.charCodeAt(i);
    if (c === COMMA) i = skipWhitespace(text, i + 1, to);
    else if (c === CLOSE_BRACE) return { entries, end: i + 1 };
    else return undefined;
  }
}

/** True when no key appears twice (JSON.parse keeps the last of duplicates; callers then fall back). */
export function keysAreUnique(entries: readonly EntryRange[]): boolean {
  if (entries.length < 2) return true;
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.key)) return false;
    seen.add(entry.key);
  }
  return true;
}

/** The one member named `key`, or undefined when it is absent or repeated. */
export function memberNamed(entries: readonly EntryRange[], key: string): EntryRange | undefined {
  let found: EntryRange | undefined;
  for (const entry of entries) {
    if (entry.key !== key) continue;
    if (found) return undefined;
    found = entry;
  }
  return found;
}
