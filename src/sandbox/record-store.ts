import { ENTITY_ORDER, type EntityName, type JsonObject } from '../entities/types.js';
import { MessageStore } from './message-store.js';
import type { SandboxRecords } from './types.js';

/** A member's scope and ban in one small number, kept even when records are not. */
const SCOPES = ['participant', 'moderator', 'admin'] as const;
const BANNED = 4;

export type Scope = (typeof SCOPES)[number];

/**
 * What the sandbox holds, keyed by lower-cased id because the service lower-cases ids (`Bob` and
 * `bob` collide). With `keepRecords` false only the ids are kept (and what reads list: a member's
 * scope, a message's ids, conversation and sentAt), so a million-message bench stays small.
 */
export class RecordStore {
  private full = new Map<EntityName, Map<string, JsonObject>>();
  private ids = new Map<EntityName, Set<string>>();
  /** Group createdAt is needed for the joinedAt rule even when records are not kept. */
  private groupCreated = new Map<string, number>();
  /** Per group, its members' uids in join order, with scope and ban. */
  private membersOf = new Map<string, Map<string, number>>();
  private deactivated = new Set<string>();
  private lastMessageId = 0;
  messages!: MessageStore;

  constructor(private readonly keepRecords: boolean) {
    this.clear();
  }

  get keepsRecords(): boolean {
    return this.keepRecords;
  }

  has(entity: EntityName, id: string): boolean {
    if (entity === 'messages') return this.messages.has(id);
    return this.keepRecords ? this.full.get(entity)!.has(id) : this.ids.get(entity)!.has(id);
  }

  /** Adds the record unless its id is there already; says whether it was added. A message needs its `id` set. */
  addNew(entity: EntityName, id: string, record: JsonObject): boolean {
    if (this.has(entity, id)) return false;
    this.add(entity, id, record);
    return true;
  }

  add(entity: EntityName, id: string, record: JsonObject): void {
    if (entity === 'messages') {
      this.messages.add(record, record.id as string);
      return;
    }
    if (this.keepRecords) this.full.get(entity)!.set(id, record);
    else this.ids.get(entity)!.add(id);
    if (entity === 'groups' && typeof record.createdAt === 'number') this.groupCreated.set(id, record.createdAt);
    if (entity === 'users' && record.deactivatedAt !== undefined && record.deactivatedAt !== null) {
      this.deactivated.add(id);
    }
    if (entity === 'members') {
      const scope = Math.max(0, SCOPES.indexOf(record.scope as Scope));
      const group = this.membersOf.get(record.guid as string) ?? new Map<string, number>();
      this.membersOf.set(record.guid as string, group);
      group.set(record.uid as string, scope | (record.isBanned === true ? BANNED : 0));
    }
  }

  /** The stored record, `true` when only ids are kept, undefined when absent. */
  get(entity: Exclude<EntityName, 'messages'>, id: string): JsonObject | true | undefined {
    if (this.keepRecords) return this.full.get(entity)!.get(id);
    return this.ids.get(entity)!.has(id) ? true : undefined;
  }

  /** Ids in the order stored. */
  idsOf(entity: Exclude<EntityName, 'messages'>): IterableIterator<string> {
    return this.keepRecords ? this.full.get(entity)!.keys() : this.ids.get(entity)!.values();
  }

  isDeactivated(uid: string): boolean {
    return this.deactivated.has(uid);
  }

  deactivate(uid: string): void {
    this.deactivated.add(uid);
  }

  /** A group's members (banned ones apart) with their scopes, in join order. */
  members(guid: string, banned: boolean): { uid: string; scope: Scope }[] {
    const out: { uid: string; scope: Scope }[] = [];
    for (const [uid, bits] of this.membersOf.get(guid) ?? []) {
      if (((bits & BANNED) !== 0) === banned) out.push({ uid, scope: SCOPES[bits & 3] });
    }
    return out;
  }

  /** Deletes a user, group (with its memberships) or membership (`<guid>_member_<uid>`). */
  remove(entity: Exclude<EntityName, 'messages'>, id: string): void {
    this.full.get(entity)!.delete(id);
    this.ids.get(entity)!.delete(id);
    if (entity === 'users') this.deactivated.delete(id);
    if (entity === 'groups') {
      for (const uid of this.membersOf.get(id)?.keys() ?? []) this.remove('members', `${id}_member_${uid}`);
      this.membersOf.delete(id);
      this.groupCreated.delete(id);
    }
  }

  /** Removes one membership. */
  removeMember(guid: string, uid: string): boolean {
    const memberId = `${guid}_member_${uid}`;
    if (!this.has('members', memberId)) return false;
    this.remove('members', memberId);
    this.membersOf.get(guid)?.delete(uid);
    return true;
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
    if (entity === 'messages') return this.messages.size;
    return this.keepRecords ? this.full.get(entity)!.size : this.ids.get(entity)!.size;
  }

  /** A copy safe to serialise: null-prototype maps, since `__proto__` is a valid uid. */
  snapshot(): SandboxRecords {
    const out = {} as SandboxRecords;
    for (const entity of ENTITY_ORDER) {
      const map: Record<string, JsonObject | true> = Object.create(null);
      if (entity === 'messages') for (const [id, record] of this.messages.entries()) map[id] = record;
      else if (this.keepRecords) for (const [id, record] of this.full.get(entity)!) map[id] = record;
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
    this.messages = new MessageStore(this.keepRecords);
    this.groupCreated.clear();
    this.membersOf.clear();
    this.deactivated.clear();
    this.lastMessageId = 0;
  }
}
