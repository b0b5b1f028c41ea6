/**
 * Stream's files, whatever their layout, as one sequence of entity events:
 *   - import format, JSON array:  [{"type": "user", "item": {...}}, ...]
 *   - import format, JSON Lines:  {"type": "user", "data": {...}} per line ("item" accepted too)
 *   - channel export v1: {"channel": {...}, "messages": [...], "members": [...]}, alone, in an array,
 *     or one per line (v2's line-separated JSON takes both line shapes)
 * A v1 object's messages and members carry `holder` (which object they came from), since the
 * channel they belong to is that object's `channel`, which may come after them.
 */
import type { JsonObject } from '../../entities/types.js';
import type { JsonPath, ProblemPiece } from '../../sources/read-pieces.js';
import type { PresetContext } from '../shared/context.js';
import { pieces } from '../shared/inputs.js';
import { isObject } from '../shared/items.js';
import type { FileShape } from '../shared/file-shape.js';
import { LINE_TYPES } from './layout.js';

export type StreamKind = 'user' | 'channel' | 'member' | 'message' | 'reaction' | 'other';

export type StreamEvent =
  | { kind: StreamKind; value: JsonObject; line: number; holder?: number }
  /** `about`: the kind the bad piece stood for, when its place says (a v1 object's messages); else unknown. */
  | { kind: 'problem'; piece: ProblemPiece; about?: StreamKind };

export type StreamLayout = FileShape;

/** Walk into array elements and into a v1 object's `messages` and `members`; cut out everything else. */
const descendFor =
  (layout: StreamLayout) =>
  (path: JsonPath): boolean => {
    const inner = layout === 'array' ? path.slice(1) : path;
    if (layout === 'array' && path.length === 1) return true;
    return inner.length === 0 || (inner.length === 1 && (inner[0] === 'messages' || inner[0] === 'members'));
  };

export async function* streamEvents(
  ctx: PresetContext,
  rel: string,
  layout: StreamLayout,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  if (layout === 'lines') {
    for await (const piece of pieces(ctx, rel, 'lines', signal)) {
      if (!piece.ok) yield { kind: 'problem', piece };
      else if (isObject(piece.value)) yield* fromWhole(piece.value, piece.line, piece.path[0] as number);
      else yield { kind: 'problem', piece: shape(piece.line, 'a line holds no object') };
    }
    return;
  }
  // Import items in an array arrive as two pieces ("type" and "item"), in either order.
  // A part that is not readable (not JSON, not UTF-8) makes the whole item one problem.
  let pending: { index: number; type?: string; item?: JsonObject; line: number; bad?: ProblemPiece } | undefined;
  const flush = function* (): Generator<StreamEvent> {
    if (pending === undefined) return;
    const { type, item, line, bad } = pending;
    pending = undefined;
    if (bad !== undefined) {
      yield { kind: 'problem', piece: bad };
    } else if (item !== undefined && type !== undefined) {
      yield { kind: LINE_TYPES.has(type) ? (type as StreamKind) : 'other', value: item, line };
    } else if (item !== undefined || type !== undefined) {
      yield { kind: 'problem', piece: shape(line, 'an import item needs both "type" and "item"') };
    }
  };
  for await (const piece of pieces(ctx, rel, descendFor(layout), signal)) {
    const path = layout === 'array' ? piece.path : [0, ...piece.path];
    const index = path[0] as number;
    if (pending !== undefined && pending.index !== index) yield* flush();
    const key = path[1];
    if (!piece.ok && piece.slot && (key === 'type' || key === 'item' || key === 'data')) {
      pending ??= { index, line: piece.line };
      pending.bad ??= piece;
      continue;
    }
    if (!piece.ok) {
      const about =
        key === 'messages' ? 'message' : key === 'members' ? 'member' : key === 'channel' ? 'channel' : undefined;
      yield about === undefined ? { kind: 'problem', piece } : { kind: 'problem', piece, about };
      continue;
    }
    if (path.length === 1) {
      yield {
        kind: 'problem',
        piece: shape(piece.line, `expected an object, found ${JSON.stringify(piece.value)?.slice(0, 40)}`),
      };
    } else if (path.length === 3 && (key === 'messages' || key === 'members')) {
      if (isObject(piece.value))
        yield { kind: key === 'messages' ? 'message' : 'member', value: piece.value, line: piece.line, holder: index };
      else
        yield {
          kind: 'problem',
          piece: shape(piece.line, 'expected an object'),
          about: key === 'messages' ? 'message' : 'member',
        };
    } else if (key === 'channel' && isObject(piece.value)) {
      yield { kind: 'channel', value: piece.value, line: piece.line, holder: index };
    } else if (key === 'type' || key === 'item' || key === 'data') {
      pending ??= { index, line: piece.line };
      if (key === 'type' && typeof piece.value === 'string') pending.type = piece.value;
      else if (key !== 'type' && isObject(piece.value)) pending.item = piece.value;
    }
  }
  yield* flush();
}

/** A whole line: an import item or a v1 channel object (its parts one by one, all on that line). */
function* fromWhole(value: JsonObject, line: number, index: number): Generator<StreamEvent> {
  const type = value.type;
  const item = isObject(value.item) ? value.item : isObject(value.data) ? value.data : undefined;
  if (typeof type === 'string' && item !== undefined) {
    yield { kind: LINE_TYPES.has(type) ? (type as StreamKind) : 'other', value: item, line };
    return;
  }
  if (!isObject(value.channel)) {
    yield { kind: 'problem', piece: shape(line, 'a line that is neither an import item nor a channel export') };
    return;
  }
  yield { kind: 'channel', value: value.channel, line, holder: index };
  for (const m of Array.isArray(value.messages) ? value.messages.filter(isObject) : [])
    yield { kind: 'message', value: m, line, holder: index };
  for (const m of Array.isArray(value.members) ? value.members.filter(isObject) : [])
    yield { kind: 'member', value: m, line, holder: index };
}

function shape(line: number, message: string): ProblemPiece {
  return { ok: false, path: [], line, rule: 'input.json-shape', message, fatal: false, slot: true };
}
