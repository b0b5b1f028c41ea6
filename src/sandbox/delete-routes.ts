import type { EntityName } from '../entities/types.js';
import { isPlainObject } from './field-checks.js';
import { notFound, type RouteAnswer } from './read-routes.js';
import type { RecordStore } from './record-store.js';

/** A delete's answer, and the entity of the record it removed or deactivated (for the stats). */
export interface DeleteAnswer extends RouteAnswer {
  deleted?: EntityName;
}

/** The DELETE routes of docs/service-reads.md ("Deleting"), which `undo` relies on; `path` as for reads. */
export function answerDelete(
  store: RecordStore,
  path: string[],
  body: unknown,
  nowSeconds: number,
): DeleteAnswer | undefined {
  const [collection, id, sub, uid] = path;
  if (id === undefined) return undefined;
  const permanent = isPlainObject(body) && body.permanent === true;
  const done = (message: string, deleted: EntityName): DeleteAnswer => ({
    status: 200,
    body: { data: { success: true, message } },
    deleted,
  });
  if (collection === 'users' && path.length === 2) {
    if (store.get('users', id) === undefined) return notFound('ERR_UID_NOT_FOUND', `user ${id}`);
    // Without `permanent` the service only deactivates: the user still takes its uid.
    if (!permanent) {
      store.deactivate(id);
      return done(`user ${id} deactivated`, 'users');
    }
    store.remove('users', id);
    return done(`user ${id} deleted`, 'users');
  }
  if (collection === 'groups' && (path.length === 2 || (path.length === 4 && sub === 'members'))) {
    if (store.get('groups', id) === undefined) return notFound('ERR_GUID_NOT_FOUND', `group ${id}`);
    if (uid === undefined) {
      store.remove('groups', id);
      return done(`group ${id} deleted`, 'groups');
    }
    if (!store.removeMember(id, uid)) return notFound('ERR_NOT_A_MEMBER', `member ${uid} of group ${id}`);
    return done(`${uid} removed from group ${id}`, 'members');
  }
  if (collection === 'messages' && path.length === 2) {
    const slot = store.messages.slotOfId(id);
    if (slot < 0) return notFound('ERR_MESSAGE_ID_NOT_FOUND', `message ${id}`);
    // Without `permanent` the service keeps the message, marked with deletedAt.
    if (permanent) store.messages.remove(slot);
    else store.messages.markDeleted(slot, nowSeconds);
    return done(`message ${id} deleted`, 'messages');
  }
  return undefined;
}
