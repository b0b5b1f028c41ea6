import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { idLogPathOf, idMapPathOf } from './state-files.js';

/** One line about a record, from the preset's id map or the id log. */
export interface FoundLine {
  file: string;
  /** 1-based, as grep -n counts. */
  line: number;
  entry: Record<string, unknown>;
}

/** The fields of a line that name a record: source id, id sent, service id, a member's two ids. */
const NAMING_FIELDS = ['sourceId', 'id', 'serviceId', 'guid', 'uid'] as const;

const lower = (value: unknown): string | undefined => (typeof value === 'string' ? value.toLowerCase() : undefined);

/** Streams an NDJSON file's parsed lines; a missing file has none, a line that is no JSON is skipped. */
async function* linesOf(file: string): AsyncGenerator<FoundLine> {
  const input = createReadStream(file, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve) => {
    input.once('open', () => resolve(true));
    input.once('error', () => resolve(false));
  });
  if (!opened) return;
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line++;
    try {
      const entry = JSON.parse(text) as unknown;
      if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
        yield { file, line, entry: entry as Record<string, unknown> };
      }
    } catch {
      // A torn or foreign line names nothing.
    }
  }
}

const names = (entry: Record<string, unknown>, wanted: ReadonlySet<string>): boolean =>
  NAMING_FIELDS.some((field) => {
    const value = lower(entry[field]);
    return value !== undefined && wanted.has(value);
  });

/**
 * Every line of the migration's preset id map and id log about `query` (a source id, an id sent, a
 * service id, case-insensitive), and the lines about the ids those lines lead to: a source id finds its
 * muid in the map, and the muid its service id in the log. Two streaming passes; memory holds the
 * matches only.
 */
export async function findIdLines(checkpoint: string, query: string): Promise<FoundLine[]> {
  const files = [idMapPathOf(checkpoint), idLogPathOf(checkpoint)];
  const wanted = new Set([query.toLowerCase()]);
  const related = new Set(wanted);
  for (const file of files) {
    for await (const found of linesOf(file)) {
      if (!names(found.entry, wanted)) continue;
      const id = lower(found.entry.id);
      if (id !== undefined) related.add(id);
    }
  }
  const out: FoundLine[] = [];
  for (const file of files) {
    for await (const found of linesOf(file)) {
      if (names(found.entry, related)) out.push(found);
    }
  }
  return out;
}
