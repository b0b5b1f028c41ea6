/**
 * How a JSON export file is laid out, told from its first bytes: a JSON array, one JSON object per
 * line, or one document. init's peek and the presets that take any of the three read it alike.
 */
import { readBlocks } from '../../sources/read-blocks.js';
import type { PresetContext } from './context.js';
import { treeBytes } from './inputs.js';

export type FileShape = 'array' | 'document' | 'lines';

const PEEK_BYTES = 64 * 1024;

/** Tells the layouts apart from the file's first 64 KB: `[`, one object per line, or one document. */
export async function detectLayout(ctx: Pick<PresetContext, 'tree'>, rel: string): Promise<FileShape | undefined> {
  let head = '';
  // Through the byte layer, as the reading will be: the same BOM handling, whole characters.
  for await (const block of readBlocks(treeBytes(ctx.tree, rel), { cutLongLinesAt: PEEK_BYTES })) {
    head += block.bytes.toString('utf8');
    if (head.length >= PEEK_BYTES) break;
  }
  const text = head.trimStart();
  if (text.startsWith('[')) return 'array';
  if (!text.startsWith('{')) return undefined;
  const newline = text.indexOf('\n');
  if (newline < 0) return 'document';
  try {
    JSON.parse(text.slice(0, newline));
    return 'lines';
  } catch {
    return 'document';
  }
}
