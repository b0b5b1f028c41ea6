/**
 * What the config `init` is about to write will read: the import's own reading of the export (the
 * dry run, with the default window), so the counts init prints are the ones validate and import will
 * meet, never a guess from another reading. It says whether the export holds any record at all, and
 * how many messages the default retention window would leave out.
 */
import type { EntityName } from '../entities/types.js';
import { DEFAULTS } from '../config/keys.js';
import type { MigrateConfig } from '../config/schema.js';
import { retentionCutoff, cutoffDate } from '../pipeline/retention.js';
import { planRun } from './plan-run.js';

export interface InitCensus {
  recordsRead: number;
  byEntity: Partial<Record<EntityName, number>>;
  messages: number;
  /** Messages older than the default retention window, and the day it starts. */
  beyondRetention: number;
  cutoff: string;
}

/** Reads the export as the written config will, offline; `config` is what init proposes. */
export async function takeInitCensus(config: Record<string, unknown>, configDir: string): Promise<InitCensus> {
  const merged = { ...DEFAULTS, sources: {}, ...config } as unknown as MigrateConfig;
  const { plans, exportFolder } = await planRun(merged, configDir);
  const { runValidate } = await import('../pipeline/validate/validate-pass.js');
  const nowSec = Math.floor(Date.now() / 1000);
  const result = await runValidate({
    plans,
    nowSec,
    importSoftDeleted: merged.importSoftDeleted,
    maxErrors: 0,
    retentionDays: DEFAULTS.retentionDays,
    exportFolder,
  });
  const byEntity: InitCensus['byEntity'] = {};
  for (const [entity, c] of Object.entries(result.byEntity)) byEntity[entity as EntityName] = c!.records;
  const cutoff = cutoffDate(retentionCutoff(nowSec, DEFAULTS.retentionDays)!);
  const messages = byEntity.messages ?? 0;
  return { recordsRead: result.recordsRead, byEntity, messages, beyondRetention: result.beyondRetention, cutoff };
}

/** `The config reads 4 users, 2 groups, 8 members, 158 messages.`, and the retention it writes. */
export function censusText(c: InitCensus): string {
  const parts = Object.entries(c.byEntity).map(([entity, n]) => `${n.toLocaleString('en-US')} ${entity}`);
  const lines = [`The config reads ${parts.length > 0 ? parts.join(', ') : 'no record'} (as validate will).`];
  if (c.beyondRetention > 0) {
    const old = `${c.beyondRetention.toLocaleString('en-US')} of ${c.messages.toLocaleString('en-US')} messages`;
    const days = DEFAULTS.retentionDays;
    lines.push(
      `${old} were sent before ${c.cutoff}, beyond the service's default ${days}-day retention window: ` +
        `the config sets "retentionDays": ${days}, so import leaves them out. If the app keeps every message ` +
        '(extended storage), set it to 0 to send them (docs/verify.md#retention).',
    );
  }
  return `${lines.join('\n')}\n`;
}
