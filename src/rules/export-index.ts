import { ENTITIES, type ReferenceKind } from '../entities/index.js';
import {
  NO_PROBLEMS,
  type EntityName,
  type IdCollisions,
  type IdMaps,
  type MappedRecord,
  type ParentEntity,
  type Problem,
} from '../entities/types.js';
import { BlockedParents, MAX_MISSING_PARENTS } from './blocked-parents.js';
import { duplicateIdProblem, idCollisionProblem } from './duplicate-problems.js';
import { IdBloomFilter } from './id-bloom.js';
import { contentHash, mix32 } from './content-hash.js';
import { hashId, idShaped, lowerA, lowerB } from './id-hash.js';
import { GroupFacts, LARGE_GROUP_MEMBERS } from './group-facts.js';
import { ID_DUPLICATE, ID_NEW, IdIndex, type IdAddResult } from './id-index.js';
import { problem, type RuleCode } from './rules.js';
import { formatCount, isIdShaped, isObject } from './values.js';
import { FileNames } from './file-names.js';

export { duplicateIdProblem, suspectDuplicateProblem } from './duplicate-problems.js';

export { LARGE_GROUP_MEMBERS } from './group-facts.js';

type RefKind = ReferenceKind;

/** What to say when a kind of reference goes unchecked (its target entity has no source). */
const UNCHECKED: Record<RefKind, string> = {
  groupOwner: 'Group owners were not checked: no users source is configured.',
  memberGroup: "Members' groups (guid) were not checked: no groups source is configured.",
  memberUser: "Members' users (uid) were not checked: no users source is configured.",
  messageSender: 'Message senders were not checked: no users source is configured.',
  receiverUser: 'Receivers of messages to users were not checked: no users source is configured.',
  receiverGroup: 'Receivers of messages to groups were not checked: no groups source is configured.',
};

/** Each kind of reference: which entity holds it, which it points at, and what to say when it goes unchecked. */
const REFS = Object.values(ENTITIES).flatMap((entity) =>
  entity.references.map((ref) => ({
    kind: ref.kind,
    from: entity.name,
    to: ref.target,
    unchecked: UNCHECKED[ref.kind],
  })),
);

export interface ExportIndexOptions {
  configured: ReadonlySet<EntityName>;
  /** The run's clock, the same instant pass 1 judges "in the future" by. */
  nowSec: number;
  /**
   * How message ids are kept (users, groups and members are always exact: references need them).
   * - `exact` (the default): an IdIndex, 24-48 bytes a message; `check` reports duplicates at once.
   * - `bloom`: a fixed-size IdBloomFilter, so memory does not grow with the messages. `check` reports
   *   no message duplicate: it marks a message whose muid may have come before with
   *   `duplicateSuspect` and keeps the muid's hash. Validate then reads the messages again through
   *   `recheckMessageId`; import lets the service's already-exists answer decide.
   * - `none` (verify, which keeps every message's id hashed itself): messages' references are checked,
   *   their ids not kept.
   */
  messageIds?: 'exact' | 'bloom' | 'none';
  /** Bytes of the Bloom filter (a power of two); tests make it tiny to force false positives. */
  bloomBytes?: number;
  /**
   * Bloom mode, import: bytes of a second filter over each muid with its content hash, so that a
   * suspect the service answers already-exists for can be told an exact duplicate (marked
   * `sameContentSuspect`: skipped `duplicate`) from a different message under the same muid. 0: none.
   */
  contentBloomBytes?: number;
  /** Ids the app already has (`userMap`, `groupMap` targets): references to them hold. */
  knownIds?: IdMaps;
  /** A preset's service ids that several export ids share (`idCollisionsOf(plans)`). */
  idCollisions?: Partial<Record<EntityName, IdCollisions>>;
  /** Keys (`parentKey`) of the users and groups an earlier run had blocked (the checkpoint's table). */
  blockedBefore?: ReadonlySet<string>;
}

/**
 * 4 MB: at 1M messages a different message under a repeated muid passes for an exact copy with odds
 * of about 1 in a million (the 16 MB id filter's odds at 4M). Such a miss is harmless: the service
 * holds the first record either way, and the second is counted skipped instead of rejected.
 */
export const CONTENT_BLOOM_BYTES = 1 << 22;

/** What `recheckMessageId` answers for a later record identical to its muid's first. */
export const SAME_RECORD = 'duplicate';

/** The second pass: ids seen so far per entity, and what members need to know about groups. */
export class ExportIndex {
  /** The run's clock, the same instant pass 1 judges "in the future" by. */
  readonly nowSec: number;
  /** Users and groups not in: callers block them (they know a record's own problems); `check` marks their children. */
  readonly blocked: BlockedParents;
  private readonly configured: ReadonlySet<EntityName>;
  // With content hashes: a repeated id is an exact duplicate (skipped) or a different record (an error).
  private readonly ids: Record<EntityName, IdIndex> = {
    users: new IdIndex(1024, { content: true }),
    groups: new IdIndex(1024, { content: true }),
    members: new IdIndex(1024, { content: true }),
    messages: new IdIndex(1024, { content: true }),
  };
  /** The index a reference to each entity is looked up in; undefined when that entity is not configured. */
  private readonly targets: Partial<Record<EntityName, IdIndex>> = {};
  /** Bloom mode: every muid so far, approximately. */
  private readonly messageBloom: IdBloomFilter | undefined;
  /** Bloom mode, import: (muid, content hash) pairs so far, approximately. */
  private readonly contentBloom: IdBloomFilter | undefined;
  /** Bloom mode: hashes of the muids the filter had seen (maybe) before. */
  private readonly suspects: IdIndex | undefined;
  /** Bloom mode, second reading: first places of suspect muids. */
  private rechecked: IdIndex | undefined;
  /** Problems of the record being checked; handed out (and replaced) only when not empty. */
  private out: Problem[] = [];
  private readonly files = new FileNames();
  private readonly groupFacts = new GroupFacts();
  private readonly unchecked = new Set<RefKind>();
  private readonly keepsMessageIds: boolean;
  private readonly idCollisions: Partial<Record<EntityName, IdCollisions>>;
  /** Checking a replayed record (`checkReplayed`): a missing parent is its own reject, not a hold. */
  private replaying = false;

  constructor(options: ExportIndexOptions) {
    this.configured = options.configured;
    this.idCollisions = options.idCollisions ?? {};
    this.keepsMessageIds = options.messageIds !== 'none';
    this.nowSec = options.nowSec;
    this.blocked = new BlockedParents(options.blockedBefore);
    for (const name of this.configured) this.targets[name] = this.ids[name];
    for (const name of ['users', 'groups'] as const) {
      const known = options.knownIds?.[name];
      if (known === undefined) continue;
      const where = this.files.numberOf(name === 'users' ? 'userMap' : 'groupMap');
      for (const id of new Set(known.values())) this.ids[name].add(id, where, 0, 0);
    }
    if (options.messageIds === 'bloom') {
      this.messageBloom = new IdBloomFilter(options.bloomBytes);
      this.suspects = new IdIndex();
      if (options.contentBloomBytes) this.contentBloom = new IdBloomFilter(options.contentBloomBytes);
    }
  }

  /** Bloom mode: how many muids the filter may have seen before (true duplicates and false positives). */
  get suspectCount(): number {
    return this.suspects?.size ?? 0;
  }

  /**
   * Records the record's id and checks its references against what came before. Skipped records
   * (deleted, before `since`) are never sent, so they neither count nor satisfy references. A record
   * identical to the first with its id (users, groups, members; messages in exact mode) is marked
   * skipped (`duplicate`) here: its references were checked at the first.
   */
  check(record: MappedRecord): Problem[] {
    if (record.skip !== undefined) return NO_PROBLEMS;
    const out = this.out;
    const isNew = this.register(record, out);
    if (record.skip !== undefined) return NO_PROBLEMS;
    this.checkReferences(out, record, isNew);
    if (out.length === 0) return NO_PROBLEMS;
    this.out = [];
    return out;
  }

  /**
   * A record sent again from the rejects file (replay): it stands in for its own slot, whose id the
   * export's reading entered already, so a repeated id is no duplicate here; an id new since (fixed
   * in the rejects file) is entered. Its references are checked as `check` does, but for a parent
   * missing from the export: the record is a line of the rejects file already, and stays one, with the
   * reference's `ref.*` rule, rather than being held (the export's own records naming it are held).
   */
  checkReplayed(record: MappedRecord): Problem[] {
    if (record.skip !== undefined) return NO_PROBLEMS;
    this.register(record, []);
    delete record.skip;
    delete record.duplicateSuspect;
    delete record.sameContentSuspect;
    const out: Problem[] = [];
    this.replaying = true;
    try {
      this.checkReferences(out, record, false);
    } finally {
      this.replaying = false;
    }
    return out.length === 0 ? NO_PROBLEMS : out;
  }

  private checkReferences(out: Problem[], record: MappedRecord, isNew: boolean): void {
    const p = record.payload;
    switch (record.entity) {
      case 'groups':
        if (isNew) this.groupFacts.remember(p);
        this.checkRef(record, out, 'owner', p.owner, 'users', 'groupOwner', 'ref.group.owner', p.groupOwnerDetails);
        break;
      case 'members':
        this.checkMember(out, record, isNew);
        break;
      case 'messages':
        this.checkRef(
          record,
          out,
          'sender',
          p.sender,
          'users',
          'messageSender',
          'ref.message.sender',
          p.senderUserDetails,
        );
        if (p.receiverType === 'user') {
          this.checkRef(
            record,
            out,
            'receiver',
            p.receiver,
            'users',
            'receiverUser',
            'ref.message.receiver',
            p.receiverUserDetails,
          );
        } else if (p.receiverType === 'group') {
          this.checkRef(
            record,
            out,
            'receiver',
            p.receiver,
            'groups',
            'receiverGroup',
            'ref.message.receiver',
            p.receiverGroupDetails,
          );
        }
        break;
      default:
        break;
    }
  }

  /**
   * Bloom mode's second reading (validate): every message again, in the first reading's order. Keeps
   * the first place of each suspect muid and reports a later one exactly as exact mode's `check` does;
   * a false positive has no earlier place and so vanishes.
   */
  recheckMessageId(record: MappedRecord): Problem | typeof SAME_RECORD | undefined {
    if (this.suspects === undefined || record.skip !== undefined || record.id === '') return undefined;
    hashId(record.id);
    if (!this.suspects.hasHashed()) return undefined;
    const seen = (this.rechecked ??= new IdIndex(1024, { content: true }));
    const content = contentHash(record.payload);
    const result = seen.addHashed(this.files.numberOf(record.file), record.line, content);
    if (result === ID_NEW) return undefined;
    if (result === ID_DUPLICATE && seen.contentAt(seen.lastSlot) === content) return SAME_RECORD;
    return this.duplicateProblem('messages', record.id, result, seen);
  }

  /** One `group.large` warning per group over the limit, placed at the group's record when the export has it. */
  finish(): Array<Problem & { entity: EntityName; id: string; file: string; line: number }> {
    const result: Array<Problem & { entity: EntityName; id: string; file: string; line: number }> = [];
    for (const large of this.groupFacts.largeGroups()) {
      const { count } = large;
      const groups = this.ids.groups;
      const atGroup = groups.has(large.id);
      const message =
        `group has ${formatCount(count)} members; above ${LARGE_GROUP_MEMBERS} ` +
        'the service does not update its conversations or unread counts';
      result.push({
        ...problem('group.large', undefined, message),
        entity: atGroup ? 'groups' : 'members',
        id: large.id,
        file: this.files.nameOf(atGroup ? groups.fileAt(groups.lastSlot) : large.file),
        line: atGroup ? groups.lineAt(groups.lastSlot) : large.line,
      });
    }
    return result;
  }

  /**
   * One sentence per kind of reference that cannot be checked: its entity is configured (or such a
   * reference was met) and its target is not. Known from the configuration alone, so callers may
   * ask before the first record as well as after the last.
   */
  uncheckedReferences(): string[] {
    const result: string[] = [];
    for (const ref of REFS) {
      if (this.configured.has(ref.to)) continue;
      if (this.configured.has(ref.from) || this.unchecked.has(ref.kind)) result.push(ref.unchecked);
    }
    return result;
  }

  /** Adds the id to its entity's set; false when an equal id (maybe but for case) came before. */
  private register(record: MappedRecord, out: Problem[]): boolean {
    const entity = record.entity;
    if (entity === 'members') {
      const p = record.payload;
      if (typeof p.guid !== 'string' || p.guid === '' || typeof p.uid !== 'string' || p.uid === '') return false;
    } else if (record.id === '') {
      return false;
    }
    if (entity === 'messages' && !this.keepsMessageIds) return true;
    if (entity === 'messages' && this.messageBloom !== undefined) {
      hashId(record.id);
      const seen = this.messageBloom.add();
      if (seen) {
        this.suspects!.addHashed(0, 0);
        record.duplicateSuspect = true;
      }
      if (this.contentBloom !== undefined) {
        const content = contentHash(record.payload);
        const same = this.contentBloom.addKey(mix32(lowerA ^ content), mix32(lowerB + content));
        if (seen && same) record.sameContentSuspect = true;
      }
      // Only groups and members act on a repeated id (isNew); a message's duplicate is settled later.
      return true;
    }
    const index = this.ids[entity];
    const content = contentHash(record.payload);
    const result = index.add(record.id, this.files.numberOf(record.file), record.line, content);
    if (result === ID_NEW) return true;
    // Two export ids made one: even records alike are two users (or groups), so never skipped as copies.
    const sources = this.idCollisions[entity]?.get(record.id.toLowerCase());
    if (sources !== undefined) {
      const where = this.files.location(index.fileAt(index.lastSlot), index.lineAt(index.lastSlot));
      out.push(idCollisionProblem(entity, record.id, sources, where));
    } else if (result === ID_DUPLICATE && index.contentAt(index.lastSlot) === content) record.skip = SAME_RECORD;
    else out.push(this.duplicateProblem(entity, record.id, result, index));
    return false;
  }

  /** id.duplicate or id.case-collision for `id`, naming the place `index.lastSlot` holds. */
  private duplicateProblem(entity: EntityName, id: string, result: IdAddResult, index: IdIndex): Problem {
    const where = this.files.location(index.fileAt(index.lastSlot), index.lineAt(index.lastSlot));
    return duplicateIdProblem(entity, id, result === ID_DUPLICATE, where);
  }

  private checkMember(out: Problem[], record: MappedRecord, isNew: boolean): void {
    const p = record.payload;
    this.checkRef(record, out, 'uid', p.uid, 'users', 'memberUser', 'ref.member.user', p.userDetails);
    const guid = p.guid;
    if (typeof guid !== 'string' || !isIdShaped(guid)) return;
    this.checkRef(record, out, 'guid', guid, 'groups', 'memberGroup', 'ref.member.group', p.groupDetails);
    const late = this.groupFacts.checkJoin(p, guid);
    if (late !== undefined) out.push(late);
    if (isNew) this.groupFacts.countMember(guid, this.files.numberOf(record.file), record.line);
  }

  /**
   * A malformed or missing reference was reported by pass 1, so it is not looked up. An embedded
   * details object for the same id lets the service create the target, so it satisfies the reference.
   */
  private checkRef(
    record: MappedRecord,
    out: Problem[],
    field: string,
    ref: unknown,
    target: EntityName,
    kind: RefKind,
    rule: RuleCode,
    details: unknown,
  ): void {
    if (typeof ref !== 'string') return;
    const ids = this.targets[target];
    if (ids === undefined) {
      if (isIdShaped(ref)) this.unchecked.add(kind);
      return;
    }
    // One walk over the reference both hashes it and tells whether it is id-shaped.
    hashId(ref);
    if (!idShaped) return;
    // A member or message of a parent that is not in waits for it (a group's owner is no such parent).
    const isChild = kind !== 'groupOwner';
    const parent = target as ParentEntity;
    // A replayed record naming a parent held as missing is reported below, as a reference never met.
    if (!this.replaying || !isChild || !this.blocked.isMissing(parent, ref)) {
      if (this.blocked.active && isChild && this.blocked.mark(record, parent, ref)) return;
      if (ids.hasHashed()) return;
    }
    const detailsId = isObject(details) ? details[target === 'users' ? 'uid' : 'guid'] : undefined;
    if (typeof detailsId === 'string' && detailsId.toLowerCase() === ref.toLowerCase()) return;
    // Missing: one hold for the id, however many records name it (the fix is one line, the parent's).
    if (isChild && !this.replaying && this.blocked.missing(record, parent, ref, rule, field)) return;
    const many =
      isChild && !this.replaying ? ` (over ${formatCount(MAX_MISSING_PARENTS)} users and groups are missing)` : '';
    out.push(problem(rule, field, `no ${ENTITIES[target].singular} ${ref} in the ${target} export${many}`));
  }

  /** True when the export has a record with this id (or a map names it). */
  hasId(entity: EntityName, id: string): boolean {
    return this.ids[entity].has(id);
  }
}
