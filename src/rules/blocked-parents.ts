import {
  MISSING_PARENT,
  type BlockedParent,
  type EntityName,
  type MappedRecord,
  type ParentEntity,
  type Problem,
} from '../entities/types.js';
import { problem, type RuleCode } from './rules.js';

/** Rejects of a repeated id: the first record with that id may well be in, so it holds nothing back. */
const REPEAT_RULES = new Set(['id.duplicate', 'id.case-collision']);

/** The key a parent is found by: references match ids whatever their case, as the index does. */
export const parentKey = (entity: ParentEntity, id: string): string => `${entity}:${id.toLowerCase()}`;

const isParent = (entity: string): entity is ParentEntity => entity === 'users' || entity === 'groups';

/**
 * Most missing users and groups one run holds children for (about 200 bytes each, here and in the
 * checkpoint's table). A missing id costs one entry however many records name it; past this many
 * distinct ones the export is most likely paired with the wrong users or groups file, and each
 * further child is rejected by its `ref.*` rule as before, rather than the table growing without end.
 */
export const MAX_MISSING_PARENTS = 10_000;

/**
 * The users and groups of the export that are not in, by key: few (a parent set is small next to
 * the messages), so they are kept exactly, with counts of what each holds back rather than a list of
 * its children. `before` holds the keys an earlier run had blocked, whose children were then
 * acknowledged without being sent: a run that finds such a parent in sends them again.
 */
export class BlockedParents {
  private readonly now = new Map<string, BlockedParent>();
  /** The missing parents met, in order: `missingSince` hands validate the new ones. */
  private readonly missingMet: BlockedParent[] = [];

  constructor(private readonly before: ReadonlySet<string> = new Set()) {}

  /** True while any parent is or was blocked: until then a reference costs no lookup. */
  get active(): boolean {
    return this.now.size > 0 || this.before.size > 0;
  }

  /**
   * A user or group that is not in: its children are held from now on. `problems` (a rule's reject)
   * are looked at for a repeated id, which blocks nothing. Other entities are ignored.
   */
  block(record: MappedRecord, reason: string, problems?: readonly Problem[]): void {
    if (!isParent(record.entity) || record.id === '') return;
    // A user or group the app already has (userMap, groupMap: skipped as `mapped`) is in.
    if (reason === 'skipped:mapped') return;
    if (problems?.some((p) => REPEAT_RULES.has(p.rule))) return;
    const key = parentKey(record.entity, record.id);
    const held = this.now.get(key)?.held ?? { members: 0, messages: 0 };
    const { entity, id, file, line } = record;
    this.now.set(key, { entity, id, file, line, reason, held });
  }

  /**
   * `ref`, an id of `target` that `record` names, is in neither the export nor a map: it holds
   * `record` (and every later child naming it) like a parent that is not in, placed at this first
   * child. False once MAX_MISSING_PARENTS are held (the caller rejects the child), unless an earlier
   * run held this one: its children were acknowledged unsent and must stay held.
   */
  missing(record: MappedRecord, target: ParentEntity, ref: string, rule: RuleCode, field: string): boolean {
    const key = parentKey(target, ref);
    if (this.missingMet.length >= MAX_MISSING_PARENTS && !this.before.has(key)) return false;
    const parent: BlockedParent = {
      entity: target,
      id: ref,
      file: record.file,
      line: record.line,
      reason: MISSING_PARENT,
      held: { members: 0, messages: 0 },
      firstChild: { entity: record.entity, id: record.id, rule, field },
    };
    this.now.set(key, parent);
    this.missingMet.push(parent);
    record.blockedBy ??= parent;
    return true;
  }

  /** True when `ref`, an id of `target`, is held as missing from the export this run. */
  isMissing(target: ParentEntity, ref: string): boolean {
    return this.now.get(parentKey(target, ref))?.reason === MISSING_PARENT;
  }

  /** The missing parents met after the first `count` of them, in order. */
  missingSince(count: number): BlockedParent[] {
    return this.missingMet.length > count ? this.missingMet.slice(count) : [];
  }

  /** How many missing parents were met so far. */
  get missingCount(): number {
    return this.missingMet.length;
  }

  /** The parent got in (the service accepted it): its children go from now on. */
  release(record: MappedRecord): void {
    if (isParent(record.entity)) this.now.delete(parentKey(record.entity, record.id));
  }

  /**
   * Marks `record` when `ref` (an id of `target`) is blocked now, or was blocked by an earlier run;
   * true when it is blocked now (a skipped parent is no missing reference).
   */
  mark(record: MappedRecord, target: ParentEntity, ref: string): boolean {
    const key = parentKey(target, ref);
    if (this.before.has(key)) record.heldBefore = true;
    const parent = this.now.get(key);
    if (parent === undefined) return false;
    record.blockedBy ??= parent;
    return true;
  }

  /** Blocked now, in the order they were met. */
  list(entity?: ParentEntity): BlockedParent[] {
    const all = [...this.now.values()];
    return entity === undefined ? all : all.filter((p) => p.entity === entity);
  }

  has(key: string): boolean {
    return this.now.has(key);
  }
}

const counted = (n: number, one: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;

/** `1 member and 11 messages`: what a parent holds back, in words (validate, status, the report). */
export function heldWords(held: { members?: number; messages?: number }): string {
  const parts: string[] = [];
  if (held.members) parts.push(counted(held.members, 'member'));
  if (held.messages) parts.push(counted(held.messages, 'message'));
  return parts.join(' and ') || 'nothing';
}

/**
 * Why a parent is not in, in words: `rejected (user.name.too-long)`, `skipped (soft-deleted)`, or
 * `not in the export (named first here)` for a missing one, whose place is its first child's.
 */
export function blockedReasonWords(reason: string): string {
  if (reason === MISSING_PARENT) return 'not in the export (named first here)';
  return reason.startsWith('skipped:') ? `skipped (${reason.slice(8)})` : `rejected (${reason})`;
}

/** One line per parent: `users.csv:2: user bob, rejected (user.name.too-long), holds back 1 member`. */
export function blockedParentLine(p: {
  entity: ParentEntity;
  id: string;
  file: string;
  line: number;
  reason: string;
  held: { members?: number; messages?: number };
}): string {
  const singular = p.entity === 'users' ? 'user' : 'group';
  return `${p.file}:${p.line}: ${singular} ${p.id}, ${blockedReasonWords(p.reason)}, holds back ${heldWords(p.held)}`;
}

/**
 * validate's one line for a parent that holds records back, at the parent's own place: its children
 * are not listed one by one (a user with 10,000 messages is one thing to fix, not 10,001). A missing
 * parent has no place of its own: its line is its first child's, under that child's `ref.*` rule.
 */
export function heldBackProblem(
  p: BlockedParent,
  stopped = false,
): Problem & { entity: EntityName; id: string; file: string; line: number } {
  const singular = p.entity === 'users' ? 'user' : 'group';
  const child = p.firstChild;
  if (child !== undefined) {
    const { entity, id, rule, field } = child;
    return { ...problem(rule as RuleCode, field, missingWords(p, stopped)), entity, id, file: p.file, line: p.line };
  }
  const message =
    `holds back ${heldWords(p.held)}: the ${singular} is ${blockedReasonWords(p.reason)}, ` +
    `and what it holds is not sent until it gets in`;
  return {
    ...problem('parent.holds-back', undefined, message),
    entity: p.entity,
    id: p.id,
    file: p.file,
    line: p.line,
  };
}

/**
 * `user u9 is not in the export: holds back 12 messages (first here)`. Its records rejected for their
 * own problems are not held; a stop (--max-errors) leaves the count at what was read before it.
 */
function missingWords(p: BlockedParent, stopped: boolean): string {
  const singular = p.entity === 'users' ? 'user' : 'group';
  const held = p.held.members + p.held.messages;
  const where = stopped ? 'first here; counted up to the stop' : 'first here';
  return `${singular} ${p.id} is not in the export${held > 0 ? `: holds back ${heldWords(p.held)}` : ''} (${where})`;
}
