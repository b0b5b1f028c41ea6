import type { EntityName } from '../../entities/types.js';
import { VerifyError } from '../../errors.js';
import type { RestClient } from '../../http/rest-client.js';
import { serviceDigest } from './compared-fields.js';
import { DIFFERENT, type ExpectedIndex, keyOf, SAME, UNSEEN } from './expected-index.js';

type Obj = Record<string, unknown>;

/** Records listed by id at most, of the service's extras. */
export const EXTRAS_LISTED = 5;
/** Service items kept to name the differing fields in the report (the rest are counted). */
export const DIFFERENT_KEPT = 1000;

/** What the service showed of one entity. */
export interface ServiceSide {
  /** Items read from the service. */
  read: number;
  /** Of them, expected records met for the first time. */
  matched: number;
  /** On the service, not in the export. */
  extra: number;
  extraIds: string[];
  /** The same record listed more than once by the service (a second copy of a message). */
  repeated: number;
  /** Records this migration sent from outside the export (replay, repair): present, not extras. */
  outside: number;
  /** Expected index -> the service's item, for the first differing records. */
  differing: Map<number, Obj>;
}

/** Finds the export's key of a message the service listed without its muid: from the import's id log. */
export interface ServiceIdLookup {
  keyOfServiceId(id: string): number | undefined;
}

export interface ServiceReadOptions {
  client: RestClient;
  /** Loaded only when a message comes back without a muid. */
  loadIdLog: (messages: ExpectedIndex) => Promise<ServiceIdLookup | undefined>;
  /** With a sample, records outside it are not extras: none are counted. */
  countExtras: boolean;
  /** `<entity>\t<id>` (lower-cased) of records sent from outside the export (id-log.ts `via`). */
  outsideExport?: ReadonlySet<string>;
  onProgress?(entity: EntityName, read: number, matched: number): void;
}

/**
 * Walks what the service holds of one entity and marks each expected record SAME or DIFFERENT; what
 * matches no expected record is an extra. Groups are needed to list members: `groupIds` gives them.
 */
export async function readServiceSide(
  entity: EntityName,
  expected: ExpectedIndex,
  options: ServiceReadOptions,
  groupIds: () => Promise<string[]>,
): Promise<ServiceSide> {
  const side: ServiceSide = {
    read: 0,
    matched: 0,
    extra: 0,
    extraIds: [],
    repeated: 0,
    outside: 0,
    differing: new Map(),
  };
  const mark = (id: string, key: number | undefined, item: Obj) => {
    side.read++;
    const i = key === undefined ? -1 : expected.find(key);
    if (i < 0) {
      if (options.outsideExport?.has(`${entity}\t${id.toLowerCase()}`)) {
        side.outside++;
        return;
      }
      if (!options.countExtras) return;
      side.extra++;
      if (side.extraIds.length < EXTRAS_LISTED) side.extraIds.push(id);
      return;
    }
    if (expected.stateOf(i) !== UNSEEN) {
      side.repeated++;
      return;
    }
    const same = serviceDigest(entity, item, expected.maskOf(i)) === expected.digestOf(i);
    expected.setState(i, same ? SAME : DIFFERENT);
    side.matched++;
    if (!same && side.differing.size < DIFFERENT_KEPT) side.differing.set(i, item);
  };
  const { client } = options;
  const report = () => options.onProgress?.(entity, side.read, side.matched);
  if (entity === 'users' || entity === 'groups') {
    const query: Record<string, string> = { withTags: 'true' };
    if (entity === 'users') query.withDeactivated = 'true';
    const idField = entity === 'users' ? 'uid' : 'guid';
    for await (const page of client.pages(entity, query)) {
      for (const item of page) mark(String(item[idField]), keyOf(String(item[idField])), item);
      report();
    }
    return side;
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
    return side;
  }
  let idLog: ServiceIdLookup | undefined;
  for await (const page of client.cursor('messages')) {
    for (const item of page) {
      const muid = typeof item.muid === 'string' && item.muid !== '' ? item.muid : undefined;
      if (muid !== undefined) {
        mark(muid, keyOf(muid), item);
        continue;
      }
      idLog ??= await options.loadIdLog(expected);
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
  return side;
}
