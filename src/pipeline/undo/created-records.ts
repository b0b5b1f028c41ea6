import { stat } from 'node:fs/promises';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import type { CheckpointData } from '../../checkpoint/store.js';
import { ENTITY_ORDER, type EntityName, type JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import { readSourceFile } from '../../sources/index.js';
import type { CreatedRecord } from './undo-steps.js';

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/**
 * Whether an id log line says the service created the record for this migration: `state` `created`.
 * `existing` (an already-exists answer) is never undone, even one marked `resent`: it may have been
 * there before, and undo deletes nothing it cannot tell was its own.
 */
const wasCreated = (line: JsonObject): boolean => line.state === 'created';

/** The id log of the checkpoint's migration: where its mark says, else its default place beside it. */
export function idLogOf(data: CheckpointData, checkpoint: string): string {
  const mark = (data as CheckpointData & { imported?: { path?: unknown } }).imported;
  return typeof mark?.path === 'string' ? mark.path : idLogPathOf(checkpoint);
}

/**
 * The records the id log says this migration created, in the order they were accepted: read through
 * the NDJSON reader. Lines for records that were already there are left out, as are mapped users
 * (never sent, so never logged).
 */
export async function readCreatedRecords(logPath: string): Promise<CreatedRecord[]> {
  const created: CreatedRecord[] = [];
  if (!(await stat(logPath).catch(() => undefined))?.isFile()) return created;
  const file = { path: logPath, display: logPath, format: 'ndjson' as const, gzip: false };
  for await (const item of readSourceFile(file)) {
    if (item.kind === 'problem') {
      if (item.rule === 'input.empty-file') continue;
      // A last line cut short by a crash: the checkpoint's mark says the record is sent again on resume.
      if (item.rule === 'input.json-syntax') continue;
      throw new InputError('UNDO_LOG_UNREADABLE', item.message, { location: { file: item.file, line: item.line } });
    }
    const v = item.value;
    const entity = v.entity as EntityName;
    const id = text(v.id);
    if (!ENTITY_ORDER.includes(entity) || id === undefined || !wasCreated(v)) continue;
    created.push({
      entity,
      id,
      serviceId: text(v.serviceId) ?? text(v.messageId),
      guid: text(v.guid),
      uid: text(v.uid),
    });
  }
  return created;
}
