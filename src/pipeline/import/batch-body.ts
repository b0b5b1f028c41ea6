import type { EntityDef } from '../../entities/index.js';
import type { MappedRecord } from '../../entities/types.js';

/** Scratch space the bodies are encoded into; a body larger than this gets a scratch of its own. */
const SCRATCH_BYTES = 256 * 1024;

/**
 * The request body, UTF-8 encoded: a map keyed by id, as the contract says. Each payload is
 * serialised once, here.
 *
 * Why bytes, not a string: a body built by concatenation was a two-byte string as soon as one record
 * held an emoji, flattened once more for the socket, and kept on the JS heap until the answer came
 * (a retry re-sends it). It was a fifth of an import's allocations, and what outlived a young-gen
 * collection was copied or promoted. Encoded into a scratch buffer and copied out, the body costs one
 * off-heap allocation of its exact size.
 */
export class BatchBodies {
  /** One sender's scratch: nothing is shared between runs, or between senders of one run. */
  private scratch: Buffer | undefined;

  serialise(entity: EntityDef, records: readonly MappedRecord[]): Buffer {
    return serialiseBatch(entity, records, (bound) =>
      bound <= SCRATCH_BYTES ? (this.scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)) : Buffer.allocUnsafe(bound),
    );
  }
}

function serialiseBatch(
  entity: EntityDef,
  records: readonly MappedRecord[],
  scratchOf: (bound: number) => Buffer,
): Buffer {
  const parts = new Array<string>(records.length * 2);
  // UTF-8 needs at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
  let bound = entity.name.length + 6 + records.length * 2;
  for (let i = 0; i < records.length; i++) {
    const key = JSON.stringify(records[i].id);
    const value = JSON.stringify(records[i].payload);
    parts[2 * i] = key;
    parts[2 * i + 1] = value;
    bound += 3 * (key.length + value.length);
  }
  const buffer = scratchOf(bound);
  let at = buffer.write(`{"${entity.name}":{`, 0, 'latin1');
  for (let i = 0; i < parts.length; i += 2) {
    if (i > 0) buffer[at++] = 0x2c; // ,
    at += buffer.write(parts[i], at, 'utf8');
    buffer[at++] = 0x3a; // :
    at += buffer.write(parts[i + 1], at, 'utf8');
  }
  buffer[at++] = 0x7d; // }
  buffer[at++] = 0x7d;
  // Copied out in both cases: a large body's own scratch is sized for the worst case, up to 3x the body.
  return Buffer.from(buffer.subarray(0, at));
}
