import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { idLogPathOf } from '../../checkpoint/state-files.js';
import type { CheckpointData } from '../../checkpoint/store.js';
import { ENTITY_ORDER, type EntityName, type JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import { readSourceFile } from '../../sources/index.js';
import type { CreatedRecord } from './undo-steps.js';

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/** The id log of the checkpoint's migration: where its mark says, else its default place beside it. */
export function idLogOf(data: CheckpointData, checkpoint: string): string {
  const mark = (data as CheckpointData & { imported?: { path?: unknown } }).imported;
  return typeof mark?.path === 'string' ? mark.path : idLogPathOf(checkpoint);
}

/**
 * Every id log of the migration, oldest first: those `import --fresh` set aside (`<log>.<time>`),
 * then the current one. Not those an undo set aside (`.undone-`): their records were deleted.
 */
export async function idLogsOf(current: string): Promise<string[]> {
  const folder = path.dirname(current);
  const prefix = `${path.basename(current)}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  const aside = names
    .filter((n) => n.startsWith(prefix) && !n.includes('.undone-') && !n.includes('.tmp-'))
    .sort()
    .map((n) => path.join(folder, n));
  return [...aside, current];
}

/** What the id logs say of the records this migration sent. */
export interface LoggedRecords {
  /** Created by this migration, in the order they were accepted. */
  created: CreatedRecord[];
  /** Records the service said were there already when this migration sent them (answer seen): kept. */
  existing: number;
}

/** The parsed lines of one id log; a torn last line (a crash) and an empty file have none. */
async function* linesOf(logPath: string): AsyncGenerator<JsonObject> {
  if (!(await stat(logPath).catch(() => undefined))?.isFile()) return;
  const file = { path: logPath, display: logPath, format: 'ndjson' as const, gzip: false };
  for await (const item of readSourceFile(file)) {
    if (item.kind === 'record') yield item.value;
    else if (item.rule !== 'input.empty-file' && item.rule !== 'input.json-syntax')
      throw new InputError('UNDO_LOG_UNREADABLE', item.message, { location: { file: item.file, line: item.line } });
  }
}

const keyOf = (entity: string, id: string): string => `${entity}\t${id.toLowerCase()}`;

/**
 * The records the id logs say this migration created: a `created` line (the service answered
 * success), or an already-exists answer to a record this migration had sent before without seeing
 * the answer: a retry (`resent`), or a batch whose write-ahead line (`sending`) has no `answered`
 * line (a kill, a failed run). Other already-exists answers are kept: the record was there already.
 * Mapped users are never sent, so never logged.
 */
export async function readCreatedRecords(logs: readonly string[]): Promise<LoggedRecords> {
  const answered = new Set<string>();
  for (const log of logs) {
    for await (const v of linesOf(log)) if (v.answered !== undefined) answered.add(`${v.run}:${v.answered}`);
  }
  const created: CreatedRecord[] = [];
  const createdKeys = new Set<string>();
  const existingKeys = new Set<string>();
  /** Records of batches sent and never answered, until a later answer about each. */
  const unanswered = new Set<string>();
  for (const log of logs) {
    for await (const v of linesOf(log)) {
      if (typeof v.sending === 'string' && Array.isArray(v.ids)) {
        if (answered.has(`${v.run}:${v.batch}`)) continue;
        for (const id of v.ids) if (typeof id === 'string') unanswered.add(keyOf(v.sending, id));
        continue;
      }
      const entity = v.entity as EntityName;
      const id = text(v.id);
      if (!ENTITY_ORDER.includes(entity) || id === undefined) continue;
      const key = keyOf(entity, id);
      const sentBefore = unanswered.delete(key);
      if (v.state !== 'created' && !(v.state === 'existing' && (v.resent === true || sentBefore))) {
        existingKeys.add(key);
        continue;
      }
      createdKeys.add(key);
      created.push({
        entity,
        id,
        serviceId: text(v.serviceId) ?? text(v.messageId),
        guid: text(v.guid),
        uid: text(v.uid),
      });
    }
  }
  let existing = 0;
  for (const key of existingKeys) if (!createdKeys.has(key)) existing++;
  return { created, existing };
}
