/**
 * Rough counts of what a recognised export holds: the files of a preset are read record by record
 * (only the records' places are walked, each record parsed once) until a byte budget is spent; a
 * file larger than what is left is counted over its first part and scaled by its size, and the
 * files after that are estimated from their size at the rate of the ones counted.
 */
import { Readable } from 'node:stream';
import type { JsonPath } from '../../sources/read-pieces.js';
import type { ExportTree } from '../shared/export-tree.js';
import { pieces } from '../shared/inputs.js';
import { isObject } from '../shared/items.js';
import type { Recognized } from './recognize.js';

/** Bytes read for counting before the rest is estimated: a few seconds on a laptop. */
const COUNT_BUDGET = 64 * 1024 * 1024;
/** What is read of a file at least, once the budget is spent and no rate is known yet. */
const MIN_PREFIX = 4 * 1024 * 1024;

export interface Counts {
  users: number;
  channels: number;
  members: number;
  messages: number;
  /** True when some files were estimated by size instead of read. */
  estimated: boolean;
}

type Tally = Omit<Counts, 'estimated'>;
/** Per file: the channels it lists, or (`asChannel`) the one channel that the file itself is. */
type FileTally = Tally & { asChannel: number };
type Found = { rel: string; what: Recognized };

const LINE_KINDS: Record<string, keyof Tally> = {
  user: 'users',
  channel: 'channels',
  direct_channel: 'channels',
  post: 'messages',
  direct_post: 'messages',
  message: 'messages',
};

export async function countExport(tree: ExportTree, found: readonly Found[]): Promise<Counts> {
  const total: FileTally = { users: 0, channels: 0, members: 0, messages: 0, asChannel: 0 };
  let spent = 0;
  let estimated = false;
  // Bytes per message, from the message-bearing files counted: what the files left over are judged by.
  const rate = { bytes: 0, messages: 0 };
  for (const file of found) {
    const size = (await tree.sizeOf(file.rel)) ?? 0;
    const withMessages = file.what.kind === 'messages' || file.what.kind === 'mixed';
    if (spent >= COUNT_BUDGET && withMessages && rate.bytes > 0) {
      total.messages += Math.round((size * rate.messages) / rate.bytes);
      if (file.what.records.at === 'messages') total.asChannel++;
      estimated = true;
      continue;
    }
    // A file larger than what is left is counted over its first part and scaled by its size.
    const take = Math.min(size, Math.max(COUNT_BUDGET - spent, MIN_PREFIX));
    const partial = size > 0 && take < size;
    const counted = await countFile(partial ? limitedTree(tree, take) : tree, file);
    if (partial) {
      const scale = size / take;
      // A file of one kind scales as a whole; a mixed one (Mattermost, Stream) only in its messages.
      const scaled =
        file.what.kind === 'mixed' ? (['messages'] as const) : (['users', 'channels', 'members', 'messages'] as const);
      for (const k of scaled) counted[k] = Math.round(counted[k] * scale);
      estimated = true;
    }
    for (const k of ['users', 'channels', 'members', 'messages', 'asChannel'] as const) total[k] += counted[k];
    spent += take;
    if (withMessages) {
      rate.bytes += size;
      rate.messages += counted.messages;
    }
  }
  // Sendbird lists its channels and writes a file per channel: the same channels, counted once.
  const { asChannel, ...counts } = total;
  return { ...counts, channels: Math.max(counts.channels, asChannel), estimated };
}

/** The tree with every file cut after `max` bytes (the record cut in two is a problem, not counted). */
function limitedTree(tree: ExportTree, max: number): ExportTree {
  return { ...tree, open: async (rel) => Readable.from(firstBytes(await tree.open(rel), max), { objectMode: false }) };
}

async function* firstBytes(stream: Readable, max: number): AsyncGenerator<Buffer> {
  let left = max;
  try {
    for await (const chunk of stream) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      if (bytes.length >= left) {
        yield bytes.subarray(0, left);
        return;
      }
      left -= bytes.length;
      yield bytes;
    }
  } finally {
    stream.destroy();
  }
}

async function countFile(tree: ExportTree, { rel, what }: Found): Promise<FileTally> {
  const tally: FileTally = { users: 0, channels: 0, members: 0, messages: 0, asChannel: 0 };
  const ctx = { tree } as Parameters<typeof pieces>[0];
  const at = what.records.at;
  if (at === 'lines') {
    for await (const piece of pieces(ctx, rel, 'lines')) {
      if (!piece.ok || !isObject(piece.value)) continue;
      const kind = typeof piece.value.type === 'string' ? LINE_KINDS[piece.value.type] : undefined;
      // Twilio lines carry no type: the file's kind says, a line being a resource or a whole list page.
      const page = what.preset === 'twilio' && what.records.type ? piece.value[what.records.type] : undefined;
      if (what.preset === 'twilio') tally[what.kind as keyof Tally] += Array.isArray(page) ? page.length : 1;
      else if (kind !== undefined) tally[kind]++;
      if (isObject(piece.value.channel) && Array.isArray(piece.value.messages)) {
        tally.channels++;
        tally.messages += piece.value.messages.length;
      }
    }
    return tally;
  }
  if (what.preset === 'telegram') return { ...(await countTelegram(ctx, rel)), asChannel: 0 };
  const descend =
    at === 'top' ? (p: JsonPath) => p.length === 0 : (p: JsonPath) => p.length === 0 || (p.length === 1 && p[0] === at);
  for await (const piece of pieces(ctx, rel, descend)) {
    if (!piece.ok) continue;
    if (at === 'top' && what.kind === 'mixed') {
      // Stream's import array: {"type": "message", "item": {...}} elements.
      const type = isObject(piece.value) && typeof piece.value.type === 'string' ? piece.value.type : '';
      const kind = LINE_KINDS[type];
      if (kind !== undefined) tally[kind]++;
      else if (isObject(piece.value) && isObject(piece.value.channel)) tally.channels++;
      continue;
    }
    if (at !== 'top' && piece.path[0] !== at) continue;
    if (what.kind === 'mixed' || what.kind === 'messages') tally.messages++;
    else tally[what.kind]++;
  }
  // A file of one channel's messages (Discord, Sendbird, a Stream v1 document) is that channel.
  if (at === 'messages' && what.kind !== 'channels') tally.asChannel++;
  return tally;
}

async function countTelegram(ctx: Parameters<typeof pieces>[0], rel: string): Promise<Tally> {
  const tally: Tally = { users: 0, channels: 0, members: 0, messages: 0 };
  const chats = new Set<string>();
  const descend = (p: JsonPath): boolean =>
    p.length === 0 ||
    (p.length === 1 && (p[0] === 'messages' || p[0] === 'chats' || p[0] === 'left_chats')) ||
    (p.length === 2 && p[1] === 'list') ||
    p.length === 3 ||
    (p.length === 4 && p[3] === 'messages');
  for await (const piece of pieces(ctx, rel, descend)) {
    if (!piece.ok) continue;
    if (piece.path[0] === 'messages') tally.messages++;
    else if (piece.path[3] === 'messages' && piece.path.length === 5) {
      tally.messages++;
      chats.add(`${String(piece.path[0])}.${String(piece.path[2])}`);
    } else if (piece.path.length === 4) chats.add(`${String(piece.path[0])}.${String(piece.path[2])}`);
  }
  tally.channels = chats.size === 0 && tally.messages > 0 ? 1 : chats.size;
  return tally;
}
