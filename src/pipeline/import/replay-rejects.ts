import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointData } from '../../checkpoint/store.js';
import { ENTITY_ORDER, type EntityName, type JsonObject } from '../../entities/types.js';
import { InputError } from '../../errors.js';
import { rejectIsTransient } from '../../rules/reject-classes.js';
import { readSourceFile } from '../../sources/index.js';
import type { ReplayItem, ReplaySource } from './replay-pass.js';

/** A slot the checkpoint keeps open: where it is, and why it was refused. */
export interface OpenSlot {
  entity: EntityName;
  file: string;
  ordinal: number;
  code: string;
  hash: string;
}

/** What the rejects file holds for replay, read once before the run. */
export interface RejectsForReplay extends ReplaySource {
  /** Open slots of the checkpoint with no line left in the rejects file: the user deleted them. */
  deleted: OpenSlot[];
  /** Replayable lines per entity. */
  items: Record<EntityName, ReplayItem[]>;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const slotKey = (entity: string, file: string, ordinal: number) => `${entity}\u0000${file}\u0000${ordinal}`;

/** Every slot the checkpoint keeps open (record slots only: a file's own problem clears when it reads well). */
export function openSlotsOf(data: CheckpointData | undefined): OpenSlot[] {
  const slots: OpenSlot[] = [];
  for (const f of Object.values(data?.files ?? {})) {
    for (const [ordinal, open] of Object.entries(f.open ?? {})) {
      const n = Number(ordinal);
      if (n >= 0) slots.push({ entity: f.entity, file: f.file, ordinal: n, code: open.code, hash: open.hash });
    }
  }
  return slots;
}

/**
 * Reads the rejects file as the user left it (through the NDJSON reader): the last line per slot
 * wins (a later run's line for the same record supersedes the earlier one). A line that is no longer
 * JSON stops the replay, naming it: its slot would otherwise read as deleted. Lines without `ordinal`
 * or `record` (input that never parsed into a record) cannot be sent; their file's open slots are
 * then never taken as deleted either.
 */
export async function readRejectsForReplay(
  rejectsPath: string,
  open: readonly OpenSlot[],
  cwd: string,
): Promise<RejectsForReplay> {
  const byKey = new Map<string, ReplayItem>();
  const listed = new Set<string>();
  const unmatchedFiles = new Set<string>();
  const regular = (await stat(rejectsPath).catch(() => undefined))?.isFile() ?? false;
  if (regular) {
    const display = path.relative(cwd, rejectsPath) || rejectsPath;
    const file = { path: rejectsPath, display, format: 'ndjson' as const, gzip: false };
    for await (const item of readSourceFile(file)) {
      if (item.kind === 'problem') {
        if (item.rule === 'input.empty-file') continue;
        throw new InputError('REPLAY_REJECTS_UNREADABLE', item.message, {
          location: { file: item.file, line: item.line },
          hint: 'fix the line (each line of the rejects file is one JSON object), or delete it to drop the record',
        });
      }
      const v = item.value;
      const entity = v.entity as EntityName;
      if (!ENTITY_ORDER.includes(entity) || typeof v.file !== 'string') continue;
      if (!Number.isInteger(v.ordinal)) {
        unmatchedFiles.add(`${entity}\u0000${v.file}`);
        continue;
      }
      const key = slotKey(entity, v.file, v.ordinal as number);
      listed.add(key);
      if (!isObject(v.record)) {
        byKey.delete(key);
        continue;
      }
      const line = typeof v.line === 'number' ? v.line : 0;
      byKey.set(key, { entity, file: v.file, line, ordinal: v.ordinal as number, record: v.record });
    }
  }
  const items = { users: [], groups: [], members: [], messages: [] } as Record<EntityName, ReplayItem[]>;
  for (const item of byKey.values()) items[item.entity].push(item);
  // Without a regular file (/dev/null, none yet) nothing can have been deleted from it.
  const deleted = regular
    ? open.filter(
        (s) => !listed.has(slotKey(s.entity, s.file, s.ordinal)) && !unmatchedFiles.has(`${s.entity}\u0000${s.file}`),
      )
    : [];
  const covered = new Set([...byKey.keys(), ...deleted.map((s) => slotKey(s.entity, s.file, s.ordinal))]);
  const covers = (entity: EntityName, file: string, ordinal: number) => covered.has(slotKey(entity, file, ordinal));
  return { items, deleted, itemsFor: (entity) => items[entity], covers };
}

/** What is still open, grouped as the summary shows it: the data to fix, and what is worth retrying. */
export interface LeftOpen {
  fixTheData: { count: number; byCode: Record<string, number> };
  worthRetrying: { count: number; byCode: Record<string, number> };
}

export function groupLeftOpen(open: readonly OpenSlot[]): LeftOpen {
  const left: LeftOpen = { fixTheData: { count: 0, byCode: {} }, worthRetrying: { count: 0, byCode: {} } };
  for (const slot of open) {
    const group = rejectIsTransient(slot.code) ? left.worthRetrying : left.fixTheData;
    group.count++;
    group.byCode[slot.code] = (group.byCode[slot.code] ?? 0) + 1;
  }
  return left;
}
