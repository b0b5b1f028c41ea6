import type { IncomingMessage } from 'node:http';
import { answerDelete, type DeleteAnswer } from './delete-routes.js';
import { errorBody } from './http-io.js';
import { answerRead } from './read-routes.js';
import type { RecordStore } from './record-store.js';
import type { ResolvedOptions } from './sandbox-options.js';

/** A GET or DELETE of docs/service-reads.md, once its key and rate are checked; undefined for an unknown path. */
export function answerReadOrDelete(
  store: RecordStore,
  config: ResolvedOptions,
  req: IncomingMessage,
  pathname: string,
  body: Buffer | undefined,
): DeleteAnswer | undefined {
  const query = (req.url ?? '').split('?', 2)[1] ?? '';
  let path: string[];
  try {
    path = pathname.replace(config.readPrefix, '').split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  // The service stores ids lower-cased, so it finds `Bob` as `bob`.
  path = path.map((segment) => segment.toLowerCase());
  const nowSeconds = Math.floor(config.now() / 1000);
  if (req.method === 'GET') {
    const retainedFrom = config.retentionDays > 0 ? nowSeconds - config.retentionDays * 86_400 : -Infinity;
    const onBehalfOf = req.headers.onbehalfof;
    return answerRead(
      {
        store,
        readsWithoutMuid: config.readsWithoutMuid,
        groupReadsWithoutMetadata: config.groupReadsWithoutMetadata,
        retainedFrom,
      },
      path,
      new URLSearchParams(query),
      Array.isArray(onBehalfOf) ? onBehalfOf[0] : onBehalfOf,
    );
  }
  if (req.method !== 'DELETE') return { status: 405, body: errorBody('ERR_METHOD_NOT_ALLOWED', 'use GET or DELETE') };
  let parsed: unknown;
  try {
    parsed = body && body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    return { status: 400, body: errorBody('ERR_BAD_REQUEST', 'the body is not valid JSON') };
  }
  return answerDelete(store, path, parsed, nowSeconds);
}
