import type { EntityName } from '../../entities/types.js';
import { VerifyError } from '../../errors.js';
import type { RestClient } from '../../http/rest-client.js';
import { COMPARED_FIELDS, serviceFields } from './compared-fields.js';
import { keyOf } from './expected-index.js';
import type { ServiceSpill } from './verify-store.js';

type Obj = Record<string, unknown>;

/** Records listed by id at most, of the service's extras. */
export const EXTRAS_LISTED = 5;

/** Finds the export's key of a message the service listed without its muid: from the import's id log. */
export interface ServiceIdLookup {
  keyOfServiceId(id: string): number | undefined;
}

export interface ServiceReadOptions {
  client: RestClient;
  /** Loaded only when a message comes back without a muid. */
  loadIdLog: () => Promise<ServiceIdLookup | undefined>;
  onProgress?(entity: EntityName, read: number): void;
  /**
   * Messages sent before this UNIX second are not listed (`fromTimestamp`, read-api.md): a window's
   * verify reads the window, not the whole history.
   */
  sinceSec?: number;
}

/**
 * Walks what the service holds of one entity and spills each item (its keys, a hash of each compared
 * field, which fields it carries) for the comparison (compare-parts.ts). Groups are needed to list
 * members: `groupIds` gives them.
 */
export async function readServiceSide(
  entity: EntityName,
  side: ServiceSpill,
  options: ServiceReadOptions,
  groupIds: () => Promise<string[]>,
): Promise<void> {
  const hashes = new Uint32Array(COMPARED_FIELDS[entity].length);
  const mark = (id: string, key: number | undefined, item: Obj) => {
    const { shown, values } = serviceFields(entity, item, hashes);
    side.add(id, key, keyOf(id), shown, hashes, values);
  };
  const { client } = options;
  const report = () => options.onProgress?.(entity, side.read);
  if (entity === 'users' || entity === 'groups') {
    const query: Record<string, string> = { withTags: 'true' };
    if (entity === 'users') query.withDeactivated = 'true';
    const idField = entity === 'users' ? 'uid' : 'guid';
    for await (const page of client.pages(entity, query)) {
      for (const item of page) mark(String(item[idField]), keyOf(String(item[idField])), item);
      report();
    }
    return;
  }
  if (entity === 'members') {
    for (const guid of await groupIds()) {
      const base = `groups/${encodeURIComponent(guid)}`;
      for (const [list, banned] of [
        ['members', false],
        ['bannedusers', true],
      ] as const) {
        for await (const page of client.pages(`${base}/${list}`)) {
          for (const item of page) {
            const id = `${guid}_member_${String(item.uid)}`;
            mark(id, keyOf(id), banned ? { ...item, isBanned: true } : item);
          }
          report();
        }
      }
    }
    return;
  }
  let idLog: ServiceIdLookup | undefined;
  const window: Record<string, number> = options.sinceSec === undefined ? {} : { fromTimestamp: options.sinceSec };
  for await (const page of client.cursor('messages', window)) {
    for (const item of page) {
      const muid = typeof item.muid === 'string' && item.muid !== '' ? item.muid : undefined;
      if (muid !== undefined) {
        mark(muid, keyOf(muid), item);
        continue;
      }
      idLog ??= await options.loadIdLog();
      if (idLog === undefined) {
        throw new VerifyError(
          'VERIFY_NO_MUID',
          "the service's message reads carry no muid, and no id log of the import was found to match them by id",
          { hint: 'verify with the checkpoint setting the import used: its id log lies beside the checkpoint' },
        );
      }
      const id = String(item.id);
      mark(`id ${id}`, idLog.keyOfServiceId(id), item);
    }
    report();
  }
}
