/**
 * Twilio Conversations as its REST API (`https://conversations.twilio.com/v1`) or the Twilio CLI
 * (`-o json`) returns it, saved to files by a user's script: list pages `{"conversations": [...],
 * "meta": {...}}` (also `participants`, `messages`, `users`) in snake_case, or the CLI's arrays of
 * items in camelCase. A file holds one page or several one after another (a JSON sequence). What a
 * file holds is told by content: a page by its list key, an array item by its SID prefix (CH, MB, IM,
 * US) or, failing that, by its fields. Never by the file's name.
 */
import type { JsonObject } from '../../entities/types.js';
import type { JsonPath } from '../../sources/read-pieces.js';
import type { PresetContext } from '../shared/context.js';
import { objectsIn } from '../shared/inputs.js';
import { SID_PREFIX, type TwilioKind } from './layout.js';

export type { TwilioKind };

export const KINDS: readonly TwilioKind[] = ['users', 'conversations', 'participants', 'messages'];
const LIST_KEYS = new Set<string>(KINDS);

/** Walk each document, a page's list and a CLI array; take items (and a page's `meta`) whole. */
export const LAYOUT = {
  sequence: (p: JsonPath): boolean =>
    p.length === 1 || (p.length === 2 && typeof p[1] === 'string' && LIST_KEYS.has(p[1])),
};

/** An item's place: `[doc, key, i]` in a page, `[doc, i]` in a CLI array. */
export const isItemPath = (p: JsonPath): boolean =>
  (p.length === 3 && LIST_KEYS.has(String(p[1]))) || (p.length === 2 && typeof p[1] === 'number');

/** A field in either spelling: `date_created` or the CLI's `dateCreated`. */
export function field(o: JsonObject, snake: string): unknown {
  const value = o[snake];
  if (value !== undefined) return value;
  return o[snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())];
}

export function kindOf(item: JsonObject, path: JsonPath): TwilioKind | undefined {
  if (path.length === 3 && LIST_KEYS.has(String(path[1]))) return path[1] as TwilioKind;
  const sid = field(item, 'sid');
  // Another resource's SID (DY delivery receipt, WH webhook, RL role): not an item of these lists.
  if (typeof sid === 'string' && /^[A-Z]{2}[0-9a-fA-F]{32}$/.test(sid)) return SID_PREFIX[sid.slice(0, 2)];
  if (field(item, 'index') !== undefined || field(item, 'author') !== undefined) return 'messages';
  if (field(item, 'messaging_binding') !== undefined || field(item, 'conversation_sid') !== undefined)
    return 'participants';
  if (field(item, 'identity') !== undefined) return 'users';
  if (field(item, 'friendly_name') !== undefined || field(item, 'unique_name') !== undefined) return 'conversations';
  return undefined;
}

/** The items of one file with their kind, for the pre-pass (bad pieces are the inputs' to report). */
export async function* itemsIn(
  ctx: PresetContext,
  rel: string,
): AsyncGenerator<{ kind: TwilioKind; value: JsonObject; line: number; spot: string }> {
  for await (const { value, line, path } of objectsIn(ctx, rel, LAYOUT)) {
    if (!isItemPath(path)) continue;
    const kind = kindOf(value, path);
    if (kind !== undefined) yield { kind, value, line, spot: spotOf(line, path) };
  }
}

/** An item's place in its file: several items share a line when a page is one NDJSON line. */
export const spotOf = (line: number, path: JsonPath): string => `${line}:${path.join('/')}`;

/** An item's place, unique in the export: its file and its `spotOf` there. */
export const placeOf = (rel: string, spot: string): string => `${rel}:${spot}`;

/**
 * The order `pull` run folders are read in: `full-<stamp>/` and `delta-<stamp>/` by their UTC stamp, so
 * the first copy of a record a delta lists again is the oldest one; other files by name, as before.
 */
export function pullRunOrder(a: string, b: string): number {
  const key = (rel: string) => rel.replace(/^(?:full|delta)-([^/]+)\//, '$1/');
  const [x, y] = [key(a), key(b)];
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
