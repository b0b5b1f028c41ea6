import { readCheckpoint } from '../checkpoint/store.js';
import { FileProgress } from '../checkpoint/file-progress.js';
import { ExitCode } from '../errors.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { plural } from '../report/words.js';

export async function statusAction(opts: CommonOptions): Promise<number> {
  const { config } = await loadCommandConfig(opts, false).catch(async (err) => {
    // status must work from a bare --checkpoint too, with no target configured.
    if (opts.checkpoint) return { config: { checkpoint: opts.checkpoint } as { checkpoint: string } };
    throw err;
  });
  const data = await readCheckpoint(config.checkpoint);
  if (!data) {
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ checkpoint: config.checkpoint, exists: false })}\n`
        : `No checkpoint at ${config.checkpoint}: nothing imported yet.\n`,
    );
    return ExitCode.ok;
  }
  const files = Object.values(data.files).map((f) => ({
    entity: f.entity,
    file: f.file,
    acknowledged: new FileProgress(f).ackedCount(),
    watermark: f.watermark,
    pendingRanges: f.acked,
    readToEnd: Boolean(f.complete),
    openRejects: new FileProgress(f).openCount(),
  }));
  // Rejected records not in yet: what a run would report as still rejected.
  const openRejects: Partial<Record<EntityName, number>> = {};
  for (const f of files) if (f.openRejects > 0) openRejects[f.entity] = (openRejects[f.entity] ?? 0) + f.openRejects;
  if (opts.json) {
    const { target, updatedAt, phasesDone, totals } = data;
    const doc = {
      checkpoint: config.checkpoint,
      exists: true,
      target,
      updatedAt,
      phasesDone,
      totals,
      openRejects,
      files,
    };
    process.stdout.write(`${JSON.stringify(doc)}\n`);
    return ExitCode.ok;
  }
  const out = [
    `Checkpoint ${config.checkpoint}`,
    `  target   ${data.target.baseUrl}`,
    `  updated  ${data.updatedAt}`,
    '',
  ];
  for (const entity of ENTITY_ORDER) {
    const t = data.totals[entity];
    const mine = files.filter((f) => f.entity === entity);
    if (!t && mine.length === 0) continue;
    const state = data.phasesDone.includes(entity) ? 'done' : 'in progress';
    const open = openRejects[entity] ?? 0;
    const skips = Object.entries(t?.skippedBy ?? {}).map(([reason, n]) => `${reason} ${n}`);
    const skipped = `${t?.skipped ?? 0} skipped${skips.length > 0 ? ` (${skips.join(', ')})` : ''}`;
    const closed = [t?.resolved ? `${t.resolved} in since` : '', t?.dropped ? `${t.dropped} dropped` : '']
      .filter(Boolean)
      .join(', ');
    const rejected = `${open} rejected and not in yet${closed ? ` (of those rejected before: ${closed})` : ''}`;
    const counts = `${t?.imported ?? 0} imported, ${t?.alreadyPresent ?? 0} already there`;
    out.push(`${entity} (${state}): ${counts}, ${rejected}, ${skipped}`);
    for (const f of mine) {
      const ranges = plural(f.pendingRanges.length, 'range');
      const beyond = f.pendingRanges.length > 0 ? ` (+${ranges} acknowledged beyond it)` : '';
      const end = f.readToEnd ? ', read to the end' : '';
      const acknowledged = `${plural(f.acknowledged, 'record')} acknowledged`;
      out.push(`  ${f.file}: ${acknowledged}, all up to record ${f.watermark}${beyond}${end}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
  return ExitCode.ok;
}
