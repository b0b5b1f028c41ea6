/**
 * What member records need to know of their groups while the export is read: each group's createdAt
 * (a join must come after it) and how many members it has (over LARGE_GROUP_MEMBERS, a warning).
 * Kept by guid, lower-cased, as references match whatever their case.
 */
import type { JsonObject, Problem } from '../entities/types.js';
import { problem } from './rules.js';
import { isObject, isoTime } from './values.js';

/** Above this many members the service stops updating a group's conversations and unread counts. */
export const LARGE_GROUP_MEMBERS = 300;

/** A group past the limit, with the member record that passed it (a fallback location). */
export interface LargeGroup {
  id: string;
  file: number;
  line: number;
  count: number;
}

export class GroupFacts {
  private readonly createdAt = new Map<string, number>();
  private readonly memberCounts = new Map<string, number>();
  private readonly large = new Map<string, Omit<LargeGroup, 'count'>>();

  remember(group: JsonObject): void {
    const createdAt = group.createdAt;
    if (typeof group.guid === 'string' && typeof createdAt === 'number' && Number.isInteger(createdAt)) {
      this.createdAt.set(group.guid.toLowerCase(), createdAt);
    }
  }

  /**
   * The member's joinedAt against its group's createdAt (from the groups read, else its groupDetails).
   * The service wants joinedAt greater than createdAt, but exports often have the creator join at the
   * very second of creation: that join is sent a second later (verify does not compare joinedAt).
   */
  checkJoin(member: JsonObject, guid: string): Problem | undefined {
    const details = isObject(member.groupDetails) ? member.groupDetails.createdAt : undefined;
    const createdAt =
      this.createdAt.get(guid.toLowerCase()) ?? (Number.isInteger(details) ? (details as number) : undefined);
    const joinedAt = member.joinedAt;
    if (createdAt === undefined || typeof joinedAt !== 'number' || !Number.isInteger(joinedAt)) return undefined;
    if (joinedAt === createdAt) member.joinedAt = createdAt + 1;
    if (joinedAt >= createdAt) return undefined;
    const message = `joinedAt ${isoTime(joinedAt)} is before the group's createdAt ${isoTime(createdAt)}`;
    return problem('member.joined-at.before-group', 'joinedAt', message);
  }

  /** One more member of `guid`, at `file` (an index) and `line`. */
  countMember(guid: string, file: number, line: number): void {
    const key = guid.toLowerCase();
    const count = (this.memberCounts.get(key) ?? 0) + 1;
    this.memberCounts.set(key, count);
    if (count === LARGE_GROUP_MEMBERS + 1) this.large.set(key, { id: guid, file, line });
  }

  /** The groups over the limit, with their member counts, in the order they passed it. */
  largeGroups(): LargeGroup[] {
    return [...this.large].map(([key, g]) => ({ ...g, count: this.memberCounts.get(key) ?? 0 }));
  }
}
