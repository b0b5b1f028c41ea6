/**
 * What `status` shows: the checkpoint's ledger (checkpoint/ledger.ts) per entity and per file, the
 * users and groups holding records back and the attachments not carried, as text or as `--json`.
 */
import { FileProgress } from '../checkpoint/file-progress.js';
import { ledgerView, type LedgerRow, type LedgerView } from '../checkpoint/ledger.js';
import type { CheckpointData } from '../checkpoint/store.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import { blockedParentLine } from '../rules/index.js';
import { plural } from './words.js';

/** What `status` prints for a checkpoint (`data` undefined: there is none), ending in a newline. */
export function formatStatus(checkpoint: string, data: CheckpointData | undefined, json: boolean): string {
  if (!data) {
    // The same words the report has for it, from the same place.
    const { state, statusLine } = ledgerView(undefined);
    const migration = { state, statusLine };
    return json
      ? `${JSON.stringify({ checkpoint, exists: false, migration })}\n`
      : `No checkpoint at ${checkpoint}: ${statusLine}\n`;
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
  const view = ledgerView(data);
  if (json) {
    const openRejects: Partial<Record<EntityName, number>> = {};
    for (const [entity, row] of Object.entries(view.entities))
      if (row.open > 0) openRejects[entity as EntityName] = row.open;
    const { target, updatedAt, phasesDone, totals } = data;
    const { state, statusLine, entities, total, media, traffic, verified, undone, blockedParents } = view;
    const migration = { state, statusLine, entities, total, media, traffic, verified, undone, blockedParents };
    const doc = { checkpoint, exists: true, target, updatedAt, phasesDone, totals, openRejects, files };
    return `${JSON.stringify({ ...doc, migration })}\n`;
  }
  const out = [`Checkpoint ${checkpoint}`, `  target   ${data.target.baseUrl}`, `  updated  ${data.updatedAt}`];
  out.push(`  ${view.statusLine}`, '');
  for (const entity of ENTITY_ORDER) {
    const row = view.entities[entity];
    if (!row) continue;
    const state = data.phasesDone.includes(entity) ? 'done' : 'in progress';
    out.push(`${entity} (${state}): ${describeRow(row)}`);
    for (const f of files.filter((f) => f.entity === entity)) {
      const ranges = plural(f.pendingRanges.length, 'range');
      const beyond = f.pendingRanges.length > 0 ? ` (+${ranges} acknowledged beyond it)` : '';
      const end = f.readToEnd ? ', read to the end' : '';
      const acknowledged = `${plural(f.acknowledged, 'record')} acknowledged`;
      out.push(`  ${f.file}: ${acknowledged}, all up to record ${f.watermark}${beyond}${end}`);
    }
  }
  out.push(...describeBlocked(view), ...describeMedia(view));
  return `${out.join('\n')}\n`;
}

/** One entity's line: what got in, what is open, given up, skipped (by reason), not yet sent. */
function describeRow(row: LedgerRow): string {
  const skips = Object.entries(row.skippedBy).map(([reason, n]) => `${reason} ${n}`);
  const skipped = `${row.skipped} skipped${skips.length > 0 ? ` (${skips.join(', ')})` : ''}`;
  const closed = [
    row.resolved ? `${row.resolved} in since` : '',
    row.replayed ? `${row.replayed} by replay` : '',
    row.dropped ? `${row.dropped} dropped` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const rejected = `${row.open} rejected and not in yet${closed ? ` (of those rejected before: ${closed})` : ''}`;
  const parts = [`${row.imported} imported`, `${row.alreadyPresent} already there`, rejected, skipped];
  if (row.blocked) parts.push(`${row.blocked} blocked by a user or group not in`);
  if (row.repaired) parts.push(`${row.repaired} repaired`);
  if (row.withoutFiles) parts.push(`${row.withoutFiles} in without their missing files`);
  if (row.notYetSent) parts.push(`${row.notYetSent} not yet sent`);
  return parts.join(', ');
}

/** Most parents shown; the report lists as many, `--json` all. */
const PARENTS_SHOWN = 20;

/** One line per user or group that holds records back, the ones holding most first. */
function describeBlocked(view: LedgerView): string[] {
  const parents = view.blockedParents;
  if (parents.length === 0) return [];
  const lines = parents.slice(0, PARENTS_SHOWN).map((p) => `  ${blockedParentLine(p)}`);
  if (parents.length > PARENTS_SHOWN) lines.push(`  ... and ${parents.length - PARENTS_SHOWN} more (--json lists all)`);
  const fix =
    'fix each in the export and run import, or in the rejects file and run replay (a missing one: add it to the ' +
    'export or to userMap/groupMap): what it holds follows';
  return ['blocked: held back until their user or group gets in', ...lines, `  ${fix}`];
}

function describeMedia(view: LedgerView): string[] {
  const { media } = view;
  if (media.notCarried === 0) return [];
  const reasons = Object.entries(media.byReason).map(([reason, n]) => `  ${n}: ${reason}`);
  const examples = media.examples.map((x) => `  e.g. ${x.file}:${x.line}: ${x.url}`);
  return [`attachments not carried (their messages wait): ${media.notCarried}`, ...reasons, ...examples];
}
