/**
 * What one peeked file is, by its content alone: which system's file and of which kind (users,
 * channels, messages). File names are never looked at; the rules are in docs/init.md, each system's
 * in its folder (`<name>/recognize.ts`), tried in the registry's order.
 */
import type { JsonObject } from '../../entities/types.js';
import { isObject } from '../shared/items.js';
import type { SystemName } from '../registry.js';
import { recordsAt, type Peek } from './peek.js';

export type FileKind = 'users' | 'channels' | 'members' | 'messages' | 'mixed';

export interface Recognized {
  preset: SystemName;
  kind: FileKind;
  /** What the records of the file are, for counting: the array key, `top` array, or `lines`. */
  records: { at: 'top' | 'lines' | string; type?: string };
}

/** How a system knows its own files from the start of one: each answers for its system alone. */
export interface Recognizer {
  /** A JSON Lines file, by its first line. */
  lines?(first: JsonObject): Recognized | undefined;
  /** A JSON array, by its first items. */
  array?(items: JsonObject[]): Recognized | undefined;
  /** A JSON document. */
  document?(doc: JsonObject): Recognized | undefined;
}

export function recognize(peek: Peek, recognizers: readonly Recognizer[]): Recognized | undefined {
  const first = <T>(input: T | undefined, by: (r: Recognizer, input: T) => Recognized | undefined) => {
    if (input === undefined) return undefined;
    for (const r of recognizers) {
      const found = by(r, input);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  if (peek.layout === 'lines') return first(peek.lines?.[0], (r, line) => r.lines?.(line));
  const head = peek.head;
  if (Array.isArray(head)) {
    const items = recordsAt(head);
    return first(items.length > 0 ? items : undefined, (r, list) => r.array?.(list));
  }
  if (isObject(head)) return first(head, (r, doc) => r.document?.(doc));
  return undefined;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
