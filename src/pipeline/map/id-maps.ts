import type { EntityName, IdMaps, JsonObject } from '../../entities/types.js';

/** The skip reason of a user or group the app already has (`userMap`, `groupMap`): not sent. */
export const MAPPED = 'mapped';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The app's id for `id` when the map has it (ids compare without case, as the service's do). */
export function mappedId(map: ReadonlyMap<string, string> | undefined, id: unknown): string | undefined {
  return map !== undefined && typeof id === 'string' ? map.get(id.toLowerCase()) : undefined;
}

/**
 * A payload with every reference to a mapped user or group rewritten to the app's id: plain fields
 * (sender, receiver, owner, a member's uid and guid), the details objects standing in for them, and
 * ids kept in metadata (`data.metadata.mentions`). Copies what it changes: the payload may be the
 * source record itself, which the rejects file keeps as read. Returns `MAPPED` for a user or group
 * that is itself mapped.
 */
export function rewriteIds(entity: EntityName, payload: JsonObject, ids: IdMaps): JsonObject | typeof MAPPED {
  const { users, groups } = ids;
  let out = payload;
  const set = (field: string, value: string) => {
    if (out === payload) out = { ...payload };
    out[field] = value;
  };
  const field = (name: string, map: ReadonlyMap<string, string> | undefined) => {
    const to = mappedId(map, out[name]);
    if (to !== undefined) set(name, to);
  };
  const details = (name: string, idField: 'uid' | 'guid', map: ReadonlyMap<string, string> | undefined) => {
    const d = out[name];
    const to = isObject(d) ? mappedId(map, d[idField]) : undefined;
    if (to !== undefined) set(name, { ...(d as JsonObject), [idField]: to } as unknown as string);
  };
  switch (entity) {
    case 'users':
      return mappedId(users, payload.uid) === undefined ? payload : MAPPED;
    case 'groups':
      if (mappedId(groups, payload.guid) !== undefined) return MAPPED;
      field('owner', users);
      details('groupOwnerDetails', 'uid', users);
      return out;
    case 'members':
      field('uid', users);
      field('guid', groups);
      details('userDetails', 'uid', users);
      details('groupDetails', 'guid', groups);
      // The member's id is made of the two: it follows them.
      if (out !== payload && typeof out.memberId === 'string') set('memberId', `${out.guid}_member_${out.uid}`);
      return out;
    case 'messages':
      field('sender', users);
      details('senderUserDetails', 'uid', users);
      if (out.receiverType === 'group') field('receiver', groups);
      else field('receiver', users);
      details('receiverUserDetails', 'uid', users);
      details('receiverGroupDetails', 'guid', groups);
      rewriteMentions(out, users, set);
      return out;
  }
}

/** `mentionedUserDetails` (objects with a uid) and `data.metadata.mentions` (uids). */
function rewriteMentions(
  out: JsonObject,
  users: ReadonlyMap<string, string> | undefined,
  set: (field: string, value: never) => void,
): void {
  if (users === undefined) return;
  const list = out.mentionedUserDetails;
  if (Array.isArray(list) && list.some((d) => isObject(d) && mappedId(users, d.uid) !== undefined)) {
    const rewritten = list.map((d) => {
      const to = isObject(d) ? mappedId(users, d.uid) : undefined;
      return to === undefined ? d : { ...d, uid: to };
    });
    set('mentionedUserDetails', rewritten as never);
  }
  const data = out.data;
  const metadata = isObject(data) ? data.metadata : undefined;
  const mentions = isObject(metadata) ? metadata.mentions : undefined;
  if (!Array.isArray(mentions) || !mentions.some((m) => mappedId(users, m) !== undefined)) return;
  const rewritten = mentions.map((m) => mappedId(users, m) ?? m);
  set('data', { ...(data as JsonObject), metadata: { ...(metadata as JsonObject), mentions: rewritten } } as never);
}
