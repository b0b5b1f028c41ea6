import type { BlockedParent, EntityName, MappedRecord, ParentEntity, Problem } from '../entities/types.js';
import { problem } from './rules.js';

/** Rejects of a repeated id: the first record with that id may well be in, so it holds nothing back. */
const REPEAT_RULES = new Set(['id.duplicate', 'id.case-collision']);

/** The key a parent is found by: references match ids whatever their case, as the index does. */
export const parentKey = (entity: ParentEntity, id: string): string => `${entity}:${id.toLowerCase()}`;

const isParent = (entity: string): entity is ParentEntity => entity === 'users' || entity === 'groups';

/**
 * The users and groups of the export that are not in, by key: few (a parent set is small next to
 * the messages), so they are kept exactly, with counts of what each holds back rather than a list of
 * its children. `before` holds the keys an earlier run had blocked, whose children were then
 * acknowledged without being sent: a run that finds such a parent in sends them again.
 */
export class BlockedParents {
  private readonly now = new Map<string, BlockedParent>();

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

/** Why a parent is not in, in words: `rejected (user.name.too-long)` or `skipped (soft-deleted)`. */
export function blockedReasonWords(reason: string): string {
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
 * are not listed one by one (a user with 10,000 messages is one thing to fix, not 10,001).
 */
export function heldBackProblem(
  p: BlockedParent,
): Problem & { entity: EntityName; id: string; file: string; line: number } {
  const singular = p.entity === 'users' ? 'user' : 'group';
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
