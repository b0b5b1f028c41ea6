import { ENTITY_ORDER, type EntityName, type JsonObject } from '../entities/types.js';
import type { SandboxRecords } from './types.js';

/**
 * What the sandbox holds, keyed by lower-cased id because the service lower-cases ids (`Bob` and
 * `bob` collide). With `keepRecords` false only the ids are kept, so a million-message bench stays
 * within a few tens of megabytes.
 */
export class RecordStore {
  private full = new Map<EntityName, Map<string, JsonObject>>();
  private ids = new Map<EntityName, Set<string>>();
  /** Group createdAt is needed for the joinedAt rule even when records are not kept. */
  private groupCreated = new Map<string, number>();
  private lastMessageId = 0;

  constructor(private readonly keepRecords: boolean) {
    this.clear();
  }

  get keepsRecords(): boolean {
    return this.keepRecords;
  }

  has(entity: EntityName, id: string): boolean {
    return this.keepRecords ? this.full.get(entity)!.has(id) : this.ids.get(entity)!.has(id);
  }

  /** Adds the record unless its id is there already; says whether it was added (ids only: one Set operation). */
  addNew(entity: EntityName, id: string, record: JsonObject): boolean {
    if (this.keepRecords) {
      if (this.has(entity, id)) return false;
      this.add(entity, id, record);
      return true;
    }
    const ids = this.ids.get(entity)!;
    const before = ids.size;
    ids.add(id);
    if (ids.size === before) return false;
    if (entity === 'groups' && typeof record.createdAt === 'number') this.groupCreated.set(id, record.createdAt);
    return true;
  }

  add(entity: EntityName, id: string, record: JsonObject): void {
    if (this.keepRecords) this.full.get(entity)!.set(id, record);
    else this.ids.get(entity)!.add(id);
    if (entity === 'groups' && typeof record.createdAt === 'number') this.groupCreated.set(id, record.createdAt);
  }

  groupCreatedAt(guid: string): number | undefined {
    return this.groupCreated.get(guid);
  }

  /**
   * The service gives each imported message a numeric id of its own. Ids start high so that they
   * rarely look like the small numeric muids of test data; the caller still guards collisions.
   */
  issueMessageId(): string {
    this.lastMessageId++;
    return String(1_000_000 + this.lastMessageId);
  }

  count(entity: EntityName): number {
    return this.keepRecords ? this.full.get(entity)!.size : this.ids.get(entity)!.size;
  }

  /** A copy safe to serialise: null-prototype maps, since `__proto__` is a valid uid. */
  snapshot(): SandboxRecords {
    const out = {} as SandboxRecords;
    for (const entity of ENTITY_ORDER) {
      const map: Record<string, JsonObject | true> = Object.create(null);
      if (this.keepRecords) for (const [id, record] of this.full.get(entity)!) map[id] = record;
      else for (const id of this.ids.get(entity)!) map[id] = true;
      out[entity] = map;
    }
    return out;
  }

  clear(): void {
    for (const entity of ENTITY_ORDER) {
      this.full.set(entity, new Map());
      this.ids.set(entity, new Set());
    }
    this.groupCreated.clear();
    this.lastMessageId = 0;
  }
}
