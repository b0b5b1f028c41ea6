import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { hash53, keyOf } from './expected-index.js';
import type { ServiceIdLookup } from './read-service.js';

/**
 * The service's message ids -> the keys of the messages they stand for, from the import's id log (one
 * NDJSON line per record the service accepted; messages carry `serviceId`). Used only when the
 * service's reads leave `muid` out. Held as numbers: a service id (digits) as itself, the message
 * as its key: 16 bytes a slot, not a Map of strings (it grows with the log: docs/verify.md).
 */
class ServiceIdTable implements ServiceIdLookup {
  private ids: Float64Array;
  private at: Float64Array;
  private used = 0;

  constructor() {
    this.ids = new Float64Array(1024);
    this.at = new Float64Array(1024);
  }

  add(serviceId: string, key: number): void {
    if (this.used * 2 >= this.ids.length) this.grow();
    const slot = this.slotOf(numberOf(serviceId));
    if (this.ids[slot] === 0) this.used++;
    this.ids[slot] = numberOf(serviceId);
    this.at[slot] = key;
  }

  keyOfServiceId(id: string): number | undefined {
    const slot = this.slotOf(numberOf(id));
    return this.ids[slot] === 0 ? undefined : this.at[slot];
  }

  private slotOf(n: number): number {
    const mask = this.ids.length - 1;
    let slot = ((n % 4294967296) >>> 0) & mask;
    while (this.ids[slot] !== 0 && this.ids[slot] !== n) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const { ids, at } = this;
    this.ids = new Float64Array(ids.length * 2);
    this.at = new Float64Array(ids.length * 2);
    this.used = 0;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] === 0) continue;
      const slot = this.slotOf(ids[i]);
      this.ids[slot] = ids[i];
      this.at[slot] = at[i];
      this.used++;
    }
  }
}

/** A service id of digits is its own number (never 0: ids start at 1); anything else its hash. */
const numberOf = (id: string): number => (/^[1-9]\d{0,14}$/.test(id) ? Number(id) : hash53(id));

/** An id log line as verify reads it: the fields it uses, unchecked. */
interface LoggedId {
  entity?: unknown;
  id?: unknown;
  serviceId?: unknown;
  via?: unknown;
}

/**
 * The id log's lines that hold `marker` (a cheap test before parsing: a big log is mostly lines
 * verify does not need); undefined when there is no log. A line that is no JSON is passed over.
 */
async function idLogLines(file: string, marker: string): Promise<AsyncIterable<LoggedId> | undefined> {
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(file, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  return (async function* () {
    for await (const line of lines) {
      if (!line.includes(marker)) continue;
      try {
        yield JSON.parse(line) as LoggedId;
      } catch {
        // A line cut short by a crash is nobody's record.
      }
    }
  })();
}

/**
 * Reads the id log at `file` into a table of the messages' keys; undefined when there is no log. A
 * message the export does not expect matches no expected record: an extra, as if unknown.
 */
export async function readServiceIds(file: string): Promise<ServiceIdLookup | undefined> {
  const entries = await idLogLines(file, '"serviceId"');
  if (entries === undefined) return undefined;
  const table = new ServiceIdTable();
  for await (const entry of entries) {
    if (entry.entity !== 'messages' || typeof entry.id !== 'string' || entry.serviceId === undefined) continue;
    table.add(String(entry.serviceId), keyOf(entry.id));
  }
  return table;
}

/**
 * Records the id log says this migration sent from outside the export (`via` replay or repair), as
 * `<entity>\t<id>` lower-cased, and messages also as `messages\tid <service id>`: verify counts them
 * as present, not as extras.
 */
export async function readOutsideExport(file: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const entry of (await idLogLines(file, '"via"')) ?? []) {
    if (typeof entry.entity !== 'string' || typeof entry.id !== 'string' || entry.via === undefined) continue;
    ids.add(`${entry.entity}\t${entry.id.toLowerCase()}`);
    if (entry.serviceId !== undefined) ids.add(`${entry.entity}\tid ${String(entry.serviceId).toLowerCase()}`);
  }
  return ids;
}
