import type { EntityName } from '../../entities/types.js';

/** A record the id log says this migration created (never one that was already there, never a mapped one). */
export interface CreatedRecord {
  entity: EntityName;
  /** uid, guid, `<guid>_member_<uid>` or muid. */
  id: string;
  /** Messages: the service's own id, which a delete needs (no endpoint takes a muid). */
  serviceId?: string;
  /** Members: the two ids, when the log keeps them apart. */
  guid?: string;
  uid?: string;
}

/** One DELETE of docs/service-reads.md ("Deleting"). */
export interface UndoStep {
  entity: EntityName;
  /** What a person reads: `message m1 (1029)`. */
  label: string;
  path: string;
  body?: { permanent: true };
}

export interface UndoPlan {
  steps: UndoStep[];
  /** Created messages the log has no service id for: they cannot be found again to delete. */
  withoutServiceId: string[];
  counts: Record<EntityName, number>;
}

const PERMANENT = { permanent: true } as const;

/** A member's guid and uid: kept apart in the log, or split off its id at the last `_member_`. */
function memberIds(r: CreatedRecord): { guid: string; uid: string } | undefined {
  if (r.guid && r.uid) return { guid: r.guid, uid: r.uid };
  const at = r.id.lastIndexOf('_member_');
  return at > 0 ? { guid: r.id.slice(0, at), uid: r.id.slice(at + '_member_'.length) } : undefined;
}

/**
 * The deletes that take a trial import back (`found`: service ids of messages the log has none for,
 * by lower-cased muid, read from the service), newest first: messages (permanently, by the service's
 * id), then members, then groups, then users (permanently), each in the reverse of the order the log
 * has them in. A record logged twice (a resend after a crash) is deleted once.
 */
export function planUndo(created: readonly CreatedRecord[], found?: ReadonlyMap<string, string>): UndoPlan {
  const plan: UndoPlan = { steps: [], withoutServiceId: [], counts: { users: 0, groups: 0, members: 0, messages: 0 } };
  const seen = new Set<string>();
  const keyOf = (r: CreatedRecord) => `${r.entity}\u0000${r.id.toLowerCase()}`;
  // The newest service id a log gave the record: a later already-exists answer carries none.
  const serviceIds = new Map<string, string>();
  for (const r of created) if (r.serviceId !== undefined) serviceIds.set(keyOf(r), r.serviceId);
  const newestFirst = [...created].reverse().flatMap((r) => {
    const key = keyOf(r);
    if (seen.has(key)) return [];
    seen.add(key);
    const serviceId = r.serviceId ?? serviceIds.get(key) ?? found?.get(r.id.toLowerCase());
    return [{ ...r, serviceId }];
  });
  const of = (entity: EntityName) => newestFirst.filter((r) => r.entity === entity);
  for (const m of of('messages')) {
    if (m.serviceId === undefined) plan.withoutServiceId.push(m.id);
    else
      plan.steps.push({
        entity: 'messages',
        label: `message ${m.id} (${m.serviceId})`,
        path: `messages/${m.serviceId}`,
        body: PERMANENT,
      });
  }
  for (const m of of('members')) {
    const ids = memberIds(m);
    if (ids !== undefined) {
      plan.steps.push({
        entity: 'members',
        label: `member ${ids.uid} of ${ids.guid}`,
        path: `groups/${ids.guid}/members/${ids.uid}`,
      });
    }
  }
  for (const g of of('groups')) plan.steps.push({ entity: 'groups', label: `group ${g.id}`, path: `groups/${g.id}` });
  for (const u of of('users')) {
    plan.steps.push({ entity: 'users', label: `user ${u.id}`, path: `users/${u.id}`, body: PERMANENT });
  }
  for (const s of plan.steps) plan.counts[s.entity]++;
  return plan;
}
