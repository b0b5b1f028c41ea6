/**
 * Verify's data on disk, so its memory stays flat whatever the export's size and whatever order the
 * service lists records in: the export's records (a hash of each compared field, a few numbers) and
 * the service's items are spilled by key into parts of at most `partRecords` expected records; each
 * part is then compared in memory on its own (a grace hash join). The service's values go to a log
 * read back only for the records the report names.
 */
import { rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { COMPARED_FIELDS } from './compared-fields.js';
import { ExpectedIndex } from './expected-index.js';
import { partChunk, SpillWriter, spillRecords, TextLog } from './spill.js';
import type { EntityName } from '../../entities/types.js';

/** Expected records a part holds by default: ~20 MB of index at most. */
export const PART_RECORDS = 750_000;

const KEY_SPACE = 2 ** 53;

/** An export record on disk: key f64, ord u32, mask u16, beyond u8, then one u32 hash per field. */
const exportRecordSize = (fields: number) => 16 + 4 * fields;
/** A service item on disk: key f64 (0: none), id key f64, values offset f64, length u32, shown u16, hashes. */
const serviceRecordSize = (fields: number) => 32 + 4 * fields;

export interface ExportRecord {
  key: number;
  ord: number;
  mask: number;
  beyondRetention: boolean;
  hashes: Uint32Array;
}

export interface ServiceRecord {
  /** The expected record's key it matches by (0: none known). */
  key: number;
  /** The key of the id it is listed by (extras, records sent from outside the export). */
  idKey: number;
  /** Where its `[id, ...values]` line lies in the values log; in the order the service listed it. */
  offset: number;
  length: number;
  /** Bit i: the item carries compared field i. */
  shown: number;
  hashes: Uint32Array;
}

/** The export's records of one entity, in the order the reading met them. */
export class ExportSpill {
  /** Bit i: some record gave compared field i. */
  given = 0;
  private readonly writer: SpillWriter;
  private readonly fields: number;
  private parts: string[] = [];

  constructor(
    private readonly dir: string,
    readonly entity: EntityName,
  ) {
    this.fields = COMPARED_FIELDS[entity].length;
    this.writer = new SpillWriter(path.join(dir, `${entity}.export`), exportRecordSize(this.fields));
  }

  get count(): number {
    return this.writer.count;
  }

  add(e: ExportRecord): void {
    const v = this.writer.next();
    v.setFloat64(0, e.key, true);
    v.setUint32(8, e.ord, true);
    v.setUint16(12, e.mask, true);
    v.setUint8(14, e.beyondRetention ? 1 : 0);
    for (let i = 0; i < this.fields; i++) v.setUint32(16 + 4 * i, e.hashes[i], true);
    this.given |= e.mask;
  }

  /** Ends the reading and splits the records into `parts` files by key (one part: the file as it is). */
  seal(parts: number): void {
    this.writer.close();
    if (parts === 1) {
      this.parts = [this.writer.file];
      return;
    }
    const size = exportRecordSize(this.fields);
    const writers = Array.from(
      { length: parts },
      (_, p) => new SpillWriter(path.join(this.dir, `${this.entity}.export.${p}`), size, partChunk(parts)),
    );
    for (const v of spillRecords(this.writer.file, size)) {
      const out = writers[partOf(v.getFloat64(0, true), parts)].next();
      new Uint8Array(out.buffer, out.byteOffset, size).set(new Uint8Array(v.buffer, v.byteOffset, size));
    }
    for (const w of writers) w.close();
    rmSync(this.writer.file);
    this.parts = writers.map((w) => w.file);
  }

  /**
   * The records the comparison looks for: each key once (a repeat of an id is not looked for again).
   * A pass over the parts before the service is read, so progress can announce an exact total.
   */
  distinct(): number {
    let n = 0;
    for (let p = 0; p < this.parts.length; p++) {
      const index = this.load(p, 0, 0, () => 0);
      n += index.size - index.repeats;
    }
    return n;
  }

  /** Part `p` as an index, each digest over the fields in `compared`. */
  load(p: number, sample: number, compared: number, digest: (hashes: Uint32Array, mask: number) => number) {
    const size = exportRecordSize(this.fields);
    const count = statSync(this.parts[p]).size / size;
    const index = new ExpectedIndex(sample, count + 16);
    const hashes = new Uint32Array(this.fields);
    for (const v of spillRecords(this.parts[p], size)) {
      const mask = v.getUint16(12, true);
      for (let i = 0; i < this.fields; i++) hashes[i] = v.getUint32(16 + 4 * i, true);
      index.add({
        key: v.getFloat64(0, true),
        ord: v.getUint32(8, true),
        mask,
        digest: digest(hashes, mask & compared),
        beyondRetention: v.getUint8(14) === 1,
      });
    }
    index.seal();
    return index;
  }
}

/** The part a key falls in, by its high bits (the index's table slots use its low ones). */
export const partOf = (key: number, parts: number): number =>
  parts === 1 ? 0 : Math.min(parts - 1, Math.floor(((key - 1) / KEY_SPACE) * parts));

/** The service's items of one entity, split into the export's parts by key. */
export class ServiceSpill {
  /** Bit i: some item carried compared field i. */
  shown = 0;
  read = 0;
  readonly values: TextLog;
  private readonly writers: SpillWriter[];
  private readonly fields: number;

  constructor(
    dir: string,
    entity: EntityName,
    readonly parts: number,
  ) {
    this.fields = COMPARED_FIELDS[entity].length;
    this.values = new TextLog(path.join(dir, `${entity}.values`));
    const size = serviceRecordSize(this.fields);
    this.writers = Array.from(
      { length: parts },
      (_, p) => new SpillWriter(path.join(dir, `${entity}.service.${p}`), size, partChunk(parts)),
    );
  }

  add(id: string, key: number | undefined, idKey: number, shown: number, hashes: Uint32Array, values: unknown[]) {
    this.read++;
    this.shown |= shown;
    const at = this.values.append(`${JSON.stringify([id, ...values])}\n`);
    // An item matching no expected key goes to part 0: there it is an extra, or sent from outside.
    const v = this.writers[key === undefined ? 0 : partOf(key, this.parts)].next();
    v.setFloat64(0, key ?? 0, true);
    v.setFloat64(8, idKey, true);
    v.setFloat64(16, at.offset, true);
    v.setUint32(24, at.length, true);
    v.setUint16(28, shown, true);
    for (let i = 0; i < this.fields; i++) v.setUint32(32 + 4 * i, hashes[i], true);
  }

  sealWriters(): void {
    for (const w of this.writers) w.close();
  }

  /** Part `p`'s items in the order the service listed them; the record is valid until the next. */
  *part(p: number): Generator<ServiceRecord> {
    const hashes = new Uint32Array(this.fields);
    const record: ServiceRecord = { key: 0, idKey: 0, offset: 0, length: 0, shown: 0, hashes };
    for (const v of spillRecords(this.writers[p].file, serviceRecordSize(this.fields))) {
      record.key = v.getFloat64(0, true);
      record.idKey = v.getFloat64(8, true);
      record.offset = v.getFloat64(16, true);
      record.length = v.getUint32(24, true);
      record.shown = v.getUint16(28, true);
      for (let i = 0; i < this.fields; i++) hashes[i] = v.getUint32(32 + 4 * i, true);
      yield record;
    }
  }

  /** The `[id, ...values]` an item was listed with. */
  valuesAt(offset: number, length: number): [string, ...(string | null)[]] {
    return JSON.parse(this.values.read(offset, length));
  }
}

/** A flagged record on disk: its ord u32 and state u8, in ord order within a part. */
export const FLAGGED_SIZE = 8;

/**
 * The records flagged missing or different, over all parts, by ascending ord, with their state: each
 * part's file is in order, so this merges them.
 */
export function* flaggedInOrder(files: string[]): Generator<{ ord: number; state: number }> {
  const streams = files.map((f) => spillRecords(f, FLAGGED_SIZE));
  const heads = streams.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let p = 0; p < heads.length; p++) {
      const h = heads[p];
      if (h.done) continue;
      if (best < 0 || h.value.getUint32(0, true) < (heads[best].value as DataView).getUint32(0, true)) best = p;
    }
    if (best < 0) return;
    const v = heads[best].value as DataView;
    yield { ord: v.getUint32(0, true), state: v.getUint8(4) };
    heads[best] = streams[best].next();
  }
}

/** How many parts `count` expected records need (a sample is held whole: it is small by nature). */
export const partsFor = (count: number, partRecords: number, sample: number): number =>
  sample > 0 ? 1 : Math.max(1, Math.ceil(count / partRecords));
