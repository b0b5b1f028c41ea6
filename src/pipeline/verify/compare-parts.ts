import path from 'node:path';
import type { EntityName } from '../../entities/types.js';
import { digestOf } from './compared-fields.js';
import { DIFFERENT, type ExpectedIndex, SAME, UNSEEN } from './expected-index.js';
import { EXTRAS_LISTED } from './read-service.js';
import { SpillWriter } from './spill.js';
import { type ExportSpill, FLAGGED_SIZE, type ServiceSpill } from './verify-store.js';
import { emptyVerdict, type EntityVerdict } from './verify-result.js';

/** Service items kept to name the differing fields in the report (the rest are counted). */
export const DIFFERENT_KEPT = 1000;

export interface Compared {
  verdict: EntityVerdict;
  /** Expected records met for the first time on the service. */
  matched: number;
  /** Per part, the flagged records (missing or different) in export order. */
  flaggedFiles: string[];
  /** Export ord -> the service's values of the first differing records (in the service's order). */
  differing: Map<number, (string | null)[]>;
  /** Bits of the compared fields that were compared: the export gave them and the service shows them. */
  compared: number;
  /** The most expected records held in memory at once (one part's). */
  heldAtMost: number;
}

export interface CompareOptions {
  dir: string;
  sample: number;
  /** With a sample, records outside it are not extras: none are counted. */
  countExtras: boolean;
  /** Keys of the ids of records sent from outside the export: present, not extras. */
  outsideKeys: ReadonlySet<number>;
}

/**
 * Compares each part of the export with the service's items of that part, in memory one part at a
 * time. Only the fields some item of the entity carries are compared (a field no read shows cannot be
 * checked); which ones the service did not show is the caller's to say.
 */
export function compareParts(
  entity: EntityName,
  expected: ExportSpill,
  service: ServiceSpill,
  options: CompareOptions,
): Compared {
  const compared = service.read === 0 ? expected.given : expected.given & service.shown;
  const out: Compared = {
    verdict: emptyVerdict(),
    matched: 0,
    flaggedFiles: [],
    differing: new Map(),
    compared,
    heldAtMost: 0,
  };
  const v = out.verdict;
  v.serviceRead = service.read;
  let differing: { offset: number; length: number; ord: number }[] = [];
  let extras: { offset: number; length: number }[] = [];
  for (let p = 0; p < service.parts; p++) {
    const index = expected.load(p, options.sample, compared, digestOf);
    let partExtras = 0;
    out.heldAtMost = Math.max(out.heldAtMost, index.size);
    for (const item of service.part(p)) {
      const i = item.key === 0 ? -1 : index.find(item.key);
      if (i < 0) {
        if (options.outsideKeys.has(item.idKey)) {
          v.expected++;
          v.present++;
        } else if (options.countExtras) {
          v.extra++;
          // Each part's first few: the first in the service's order overall are among them.
          if (partExtras++ < EXTRAS_LISTED) extras.push({ offset: item.offset, length: item.length });
        }
        continue;
      }
      if (index.stateOf(i) !== UNSEEN) {
        v.repeated++;
        continue;
      }
      const same = digestOf(item.hashes, index.maskOf(i) & compared) === index.digestOf(i);
      index.setState(i, same ? SAME : DIFFERENT);
      out.matched++;
      if (!same) differing.push({ offset: item.offset, length: item.length, ord: index.ordOf(i) });
    }
    // Only the first ones in the service's order are kept, whichever part they fell in.
    if (differing.length > DIFFERENT_KEPT) differing = firstListed(differing, DIFFERENT_KEPT);
    extras = firstListed(extras, EXTRAS_LISTED);
    out.flaggedFiles.push(tally(index, v, path.join(options.dir, `${entity}.flagged.${p}`), options.sample > 0));
  }
  for (const d of firstListed(differing, DIFFERENT_KEPT)) {
    out.differing.set(d.ord, service.valuesAt(d.offset, d.length).slice(1) as (string | null)[]);
  }
  v.extraIds = firstListed(extras, EXTRAS_LISTED).map((e) => service.valuesAt(e.offset, e.length)[0]);
  return out;
}

const firstListed = <T extends { offset: number }>(list: T[], n: number): T[] =>
  list.sort((a, b) => a.offset - b.offset).slice(0, n);

/** Adds one part's counts to `v` and writes its flagged records, in export order, to `file`. */
function tally(index: ExpectedIndex, v: EntityVerdict, file: string, sampled: boolean): string {
  const flagged: number[] = [];
  v.skipped += index.repeats;
  for (let i = 0; i < index.size; i++) {
    if (index.isRepeat(i)) continue;
    v.expected++;
    const state = index.stateOf(i);
    if (state === SAME) v.present++;
    else if (state === DIFFERENT) {
      v.different++;
      flagged.push(i);
    } else if (index.isBeyondRetention(i)) v.beyondRetention++;
    else {
      v.missing++;
      flagged.push(i);
    }
  }
  // A sample's records are not held in export order (reservoir sampling puts them anywhere).
  if (sampled) flagged.sort((a, b) => index.ordOf(a) - index.ordOf(b));
  const writer = new SpillWriter(file, FLAGGED_SIZE);
  for (const i of flagged) {
    const rec = writer.next();
    rec.setUint32(0, index.ordOf(i), true);
    rec.setUint8(4, index.stateOf(i));
  }
  writer.close();
  return file;
}
