/**
 * Streams the values of a JSON document at the paths a preset asks for, with the line each starts
 * on. The caller says which containers to walk into (`descend`); every other value met inside them
 * is cut out whole as text (one message, one user) for JSON.parse. So a 2 GB `{"messages": [...]}`
 * costs the memory of one message, and nested layouts (Telegram's `chats.list[i].messages[j]`)
 * stream as well as flat arrays.
 *
 * Why not src/sources/read-json.ts: it reads files on disk and finds records at the top level only;
 * presets read zip entries too and need records under keys. The scanner only checks the structure
 * it walks; a value it cuts out is checked by JSON.parse, so one bad record costs one record.
 */
import { StringDecoder } from 'node:string_decoder';

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonHit {
  path: JsonPath;
  /** The value's JSON text. */
  text: string;
  /** 1-based line where the value starts. */
  line: number;
}

/** The document's structure is broken where the scanner walks: the rest cannot be read. */
export class JsonScanError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

interface Frame {
  array: boolean;
  path: Array<string | number>;
  index: number;
  /** What the frame waits for: a key (objects), a value, or a comma/close after one. */
  want: 'key' | 'colon' | 'value' | 'next';
  key: string;
}

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export async function* scanJson(chunks: AsyncIterable<Buffer | string>, descend: (path: JsonPath) => boolean): AsyncGenerator<JsonHit> {
  const decoder = new StringDecoder('utf8');
  const stack: Frame[] = [];
  let line = 1;
  let started = false;
  let done = false;
  // A value being cut out: its pieces so far, nesting, string state and where it started.
  let capture: { parts: string[]; depth: number; inString: boolean; escape: boolean; scalar: boolean; path: JsonPath; line: number } | undefined;
  // A key being read (keys may span chunks).
  let keyParts: string[] | undefined;
  let keyEscape = false;
  const out: JsonHit[] = [];

  const fail = (message: string): never => {
    throw new JsonScanError(line, message);
  };

  const valuePath = (): Array<string | number> => {
    const top = stack[stack.length - 1];
    return top === undefined ? [] : [...top.path, top.array ? top.index : top.key];
  };

  const afterValue = () => {
    const top = stack[stack.length - 1];
    if (top === undefined) done = true;
    else top.want = 'next';
  };

  const feed = (s: string) => {
    let i = 0;
    if (!started && s.charCodeAt(0) === 0xfeff) i = 1;
    const n = s.length;
    while (i < n) {
      if (capture !== undefined) {
        // Tight loop over a cut-out value: only brackets, quotes and escapes matter.
        const start = i;
        let ended = false;
        for (; i < n; i++) {
          const c = s.charCodeAt(i);
          if (c === 0x0a) line++;
          if (capture.inString) {
            if (capture.escape) capture.escape = false;
            else if (c === 0x5c) capture.escape = true;
            else if (c === 0x22) {
              capture.inString = false;
              if (capture.depth === 0) {
                i++;
                ended = true;
                break;
              }
            }
          } else if (capture.scalar) {
            if (c === 0x2c || c === 0x7d || c === 0x5d || WS(c)) {
              if (c === 0x0a) line--; // the terminator is read again by the walker
              ended = true;
              break;
            }
          } else if (c === 0x22) capture.inString = true;
          else if (c === 0x7b || c === 0x5b) capture.depth++;
          else if (c === 0x7d || c === 0x5d) {
            if (--capture.depth === 0) {
              i++;
              ended = true;
              break;
            }
          }
        }
        capture.parts.push(s.slice(start, i));
        if (ended) {
          out.push({ path: capture.path, text: capture.parts.join(''), line: capture.line });
          capture = undefined;
          afterValue();
        }
        continue;
      }
      if (keyParts !== undefined) {
        const start = i;
        for (; i < n; i++) {
          const c = s.charCodeAt(i);
          if (keyEscape) keyEscape = false;
          else if (c === 0x5c) keyEscape = true;
          else if (c === 0x22) break;
        }
        keyParts.push(s.slice(start, i));
        if (i < n) {
          i++;
          const raw = keyParts.join('');
          keyParts = undefined;
          const top = stack[stack.length - 1];
          try {
            top.key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
          } catch {
            fail('invalid object key');
          }
          top.want = 'colon';
        }
        continue;
      }
      const c = s.charCodeAt(i);
      if (WS(c)) {
        if (c === 0x0a) line++;
        i++;
        continue;
      }
      started = true;
      if (done) fail('unexpected text after the end of the JSON document');
      const top = stack[stack.length - 1];
      if (top !== undefined && top.want === 'key') {
        if (c === 0x22) {
          keyParts = [];
          i++;
        } else if (c === 0x7d && top.index === 0) {
          stack.pop();
          afterValue();
          i++;
        } else fail('expected an object key');
        continue;
      }
      if (top !== undefined && top.want === 'colon') {
        if (c !== 0x3a) fail('expected ":" after an object key');
        top.want = 'value';
        i++;
        continue;
      }
      if (top !== undefined && top.want === 'next') {
        if (c === 0x2c) {
          top.index++;
          top.want = top.array ? 'value' : 'key';
        } else if (c === (top.array ? 0x5d : 0x7d)) {
          stack.pop();
          afterValue();
        } else fail(top.array ? 'expected "," or "]"' : 'expected "," or "}"');
        i++;
        continue;
      }
      // A value starts (top-level, array element or object member).
      if (top?.array && c === 0x5d && top.index === 0) {
        stack.pop();
        afterValue();
        i++;
        continue;
      }
      const path = valuePath();
      if ((c === 0x7b || c === 0x5b) && descend(path)) {
        stack.push({ array: c === 0x5b, path, index: 0, want: c === 0x5b ? 'value' : 'key', key: '' });
        i++;
        continue;
      }
      if (c === 0x7d || c === 0x5d || c === 0x2c || c === 0x3a) fail(`unexpected "${String.fromCharCode(c)}"`);
      capture = { parts: [], depth: 0, inString: false, escape: false, scalar: c !== 0x7b && c !== 0x5b && c !== 0x22, path, line };
    }
  };

  // Hits found before a structural error are still handed out, then the error.
  const feedSafely = (text: string): unknown => {
    try {
      feed(text);
      return undefined;
    } catch (error) {
      return error;
    }
  };
  for await (const chunk of chunks) {
    const error = feedSafely(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    started = true;
    for (const hit of out) yield hit;
    out.length = 0;
    if (error !== undefined) throw error;
  }
  const error = feedSafely(decoder.end());
  if (error !== undefined) {
    for (const hit of out) yield hit;
    throw error;
  }
  if (capture?.scalar && stack.length === 0) {
    out.push({ path: capture.path, text: capture.parts.join(''), line: capture.line });
    capture = undefined;
    done = true;
  }
  for (const hit of out) yield hit;
  if (capture !== undefined || keyParts !== undefined || stack.length > 0) fail('the file ends before the JSON document does');
}
