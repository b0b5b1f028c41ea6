import { ENTITY_ORDER, type EntityName } from '../entities/types.js';

/**
 * FNV-1a with murmur3's final mix (ids differing in their last character must still spread over
 * the whole range): the same record is chosen whatever order or batch it arrives in.
 */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The lost-records fault: the service answers `success` for a record and never stores it (what
 * users report from the field). A record is chosen by its id, from a seeded hash (`share`) or a
 * pattern, so a test can list the lost ones; each is lost once only, so sending it again stores it.
 */
export class LostRecords {
  private lost = new Map<EntityName, Set<string>>();

  constructor(
    private readonly share: number,
    private readonly pattern: RegExp | undefined,
    private readonly seed: number,
  ) {
    this.reset();
  }

  get enabled(): boolean {
    return this.share > 0 || this.pattern !== undefined;
  }

  /** Decides for one accepted record (lower-cased id) and remembers a loss. */
  loses(entity: EntityName, id: string): boolean {
    if (!this.enabled) return false;
    const lost = this.lost.get(entity)!;
    if (lost.has(id)) return false;
    const chosen =
      (this.pattern?.test(id) ?? false) ||
      (this.share > 0 && hash32(`${this.seed}:${entity}:${id}`) / 2 ** 32 < this.share);
    if (chosen) lost.add(id);
    return chosen;
  }

  /** The lost ids per entity, in the order they were lost. */
  snapshot(): Record<EntityName, string[]> {
    const out = {} as Record<EntityName, string[]>;
    for (const entity of ENTITY_ORDER) out[entity] = [...this.lost.get(entity)!];
    return out;
  }

  reset(): void {
    for (const entity of ENTITY_ORDER) this.lost.set(entity, new Set());
  }
}
