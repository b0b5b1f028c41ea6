import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CheckpointData } from '../../checkpoint/store.js';
import { meaningOf } from './reject-meanings.js';

/** How many examples (file:line) each code shows. */
const EXAMPLES = 3;

export interface RejectExample {
  entity: string;
  file: string;
  line: number;
  id?: string;
  message: string;
}

/** One reject code: how often, what it means, what to do, the first examples; open versus resolved. */
export interface RejectCode {
  code: string;
  /** Lines of the rejects file with this code. */
  lines: number;
  /** Slots the checkpoint holds open with this code: rejected and not in yet. */
  open: number;
  /** Given up: the line deleted from the rejects file before a replay (the ledger counts them). */
  dropped: number;
  /** Lines whose record is no longer open nor given up: fixed and sent, or skipped since. */
  resolved: number;
  meaning: string;
  action: string;
  examples: RejectExample[];
}

/**
 * Counts the rejects file by code, streaming (it can hold millions of lines), and the checkpoint's open
 * rejects by code. A line that is not JSON (a crash cut it short) is left out.
 */
export async function readRejects(
  path: string | undefined,
  checkpoint?: CheckpointData,
  droppedByCode: Record<string, number> = {},
): Promise<RejectCode[]> {
  const codes = new Map<string, RejectCode>();
  const codeOf = (code: string) => {
    let c = codes.get(code);
    if (!c) {
      c = { code, lines: 0, open: 0, dropped: 0, resolved: 0, ...meaningOf(code), examples: [] };
      codes.set(code, c);
    }
    return c;
  };
  if (path) {
    try {
      const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const text of lines) {
        if (text === '') continue;
        let entry: { code?: unknown; entity?: string; file?: string; line?: number; id?: string; message?: string };
        try {
          entry = JSON.parse(text);
        } catch {
          continue;
        }
        if (typeof entry.code !== 'string') continue;
        const c = codeOf(entry.code);
        c.lines++;
        if (c.examples.length < EXAMPLES) {
          const { entity = '', file = '', line = 0, id, message = '' } = entry;
          c.examples.push({ entity, file, line, id, message });
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  for (const f of Object.values(checkpoint?.files ?? {})) {
    for (const open of Object.values(f.open ?? {})) codeOf(open.code).open++;
  }
  for (const [code, n] of Object.entries(droppedByCode)) codeOf(code).dropped += n;
  // A given-up record's line was deleted from the file: it is counted, but no longer one of its lines.
  for (const c of codes.values()) c.resolved = Math.max(0, c.lines - c.open);
  return [...codes.values()].sort((a, b) => b.open - a.open || b.lines - a.lines || (a.code < b.code ? -1 : 1));
}
