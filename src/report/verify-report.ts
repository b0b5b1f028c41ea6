import type { EntityName } from '../entities/types.js';
import type { EntityVerdict, VerifyResult } from '../pipeline/verify/verify-result.js';
import { plural } from './words.js';

/** Lines of missing or different records the text report shows per entity; --json lists more. */
const SHOWN_AT_MOST = 1000;

const singular = (entity: string) => entity.replace(/s$/, '');
const entries = (r: VerifyResult) => Object.entries(r.entities) as [EntityName, EntityVerdict][];

/** `file:line: message m1: not on the service`, the shape validate's report and compilers use. */
export function formatVerifyText(r: VerifyResult): string {
  const out: string[] = [];
  const missing = entries(r).reduce((n, [, v]) => n + v.missing, 0);
  const different = entries(r).reduce((n, [, v]) => n + v.different, 0);
  if (missing > 0) {
    out.push(`Missing (${missing}):`);
    for (const [entity, v] of entries(r)) {
      for (const m of v.missingRecords.slice(0, SHOWN_AT_MOST)) {
        out.push(`  ${m.file}:${m.line}: ${singular(entity)} ${m.id}: not on the service`);
      }
      const more = v.missing - Math.min(v.missingRecords.length, SHOWN_AT_MOST);
      if (more > 0) out.push(`  (${plural(more, `more missing ${singular(entity)}`, `more missing ${entity}`)})`);
    }
  }
  if (different > 0) {
    out.push(`Different (${different}):`);
    for (const [entity, v] of entries(r)) {
      for (const d of v.differentRecords.slice(0, SHOWN_AT_MOST)) {
        const fields = d.fields.map((f) => `${f.field}: ${f.expected} in the export, ${f.actual} on the service`);
        out.push(
          `  ${d.file}:${d.line}: ${singular(entity)} ${d.id}: ${fields.join('; ') || 'compared fields differ'}`,
        );
      }
      const more = v.different - Math.min(v.differentRecords.length, SHOWN_AT_MOST);
      if (more > 0) out.push(`  (${more} more different ${entity})`);
    }
  }
  const extras = entries(r).filter(([, v]) => v.extra > 0);
  if (extras.length > 0) {
    out.push('On the service, not in the export:');
    for (const [entity, v] of extras) {
      const some = v.extraIds.join(', ');
      out.push(`  ${entity}: ${v.extra}${some ? ` (${some}${v.extra > v.extraIds.length ? ', ...' : ''})` : ''}`);
    }
  }
  for (const [entity, v] of entries(r)) {
    if (v.beyondRetention === 0) continue;
    out.push(
      `note: ${plural(v.beyondRetention, singular(entity), entity)} older than the ${r.retentionDays}-day retention ` +
        'window: import skips them and the service keeps them out of sight, so they are reported apart, ' +
        'not as missing',
    );
  }
  for (const [entity, v] of entries(r)) {
    if (!v.notShown?.length) continue;
    out.push(
      `note: not compared for ${entity}: ${v.notShown.join(', ')}: the export gives ` +
        `${v.notShown.length === 1 ? 'it' : 'them'}, but no item the service's reads listed carries ` +
        `${v.notShown.length === 1 ? 'it' : 'them'}, so a difference there cannot be seen (not counted, not repaired)`,
    );
  }
  for (const [entity, v] of entries(r)) {
    if (v.refused === 0) continue;
    out.push(
      `note: ${plural(v.refused, singular(entity), entity)} of the export the import does not send ` +
        '(refused by its checks, or blocked by a user or group not in: see the rejects file, `status` or ' +
        'run validate); not expected on the service',
    );
  }
  if (r.filesNotRead) {
    out.push(
      `note: ${plural(r.filesNotRead, 'message file')} older than the window not read: unchanged since the ` +
        'import read them to their end, every message in them sent before --since (not counted as skipped)',
    );
  }
  if (r.repair !== undefined) out.push(...repairLines(r));
  if (r.sample !== undefined) out.push(`note: a sample of at most ${r.sample} records per entity was compared`);
  out.push('', 'By entity:');
  out.push(
    `  ${'entity'.padEnd(9)} ${['expected', 'present', 'different', 'missing', 'old', 'extra'].map(pad).join(' ')}`,
  );
  for (const [entity, v] of entries(r)) {
    const cells = [v.expected, v.present, v.different, v.missing, v.beyondRetention, v.extra].map((n) =>
      pad(String(n)),
    );
    out.push(`  ${entity.padEnd(9)} ${cells.join(' ')}`);
  }
  const expected = entries(r).reduce((n, [, v]) => n + v.expected, 0);
  const old = entries(r).reduce((n, [, v]) => n + v.beyondRetention, 0);
  // Old messages the service hides are not "on the service": the OK line says so rather than count them in.
  const shown =
    old === 0
      ? `all ${plural(expected, 'record')} of the export are on the service`
      : `all ${expected - old} records of the export the service shows are on it; ` +
        `${plural(old, 'message')} older than the ${r.retentionDays}-day window are not shown`;
  const requests = `${plural(r.requests, 'read request')}, ${(r.elapsedMs / 1000).toFixed(1)} s`;
  out.push(
    '',
    r.ok
      ? `OK: ${shown} (${requests})`
      : `FAILED: ${missing} missing, ${different} different, of ${plural(expected, 'record')} (${requests})`,
  );
  return `${out.join('\n')}\n`;
}

const pad = (text: string) => text.padStart(9);

/** What --repair sent, before the second verification whose findings the report shows. */
function repairLines(r: VerifyResult): string[] {
  const repair = r.repair!;
  const sent = Object.entries(repair.sent).map(([entity, n]) => `${entity} ${n}`);
  if (sent.length === 0) return ['repair: nothing was missing, nothing was sent'];
  const out = [
    `repair: sent again ${sent.join(', ')} (${plural(repair.requests, 'request')}): ` +
      `${repair.imported} stored, ${repair.alreadyPresent} already there, ${repair.rejected.length} refused; ` +
      'the figures below are from verifying them again',
  ];
  for (const x of repair.rejected) out.push(`  ${x.file}:${x.line}: ${x.id}: refused: ${x.message} [${x.code}]`);
  return out;
}

export function formatVerifyJson(r: VerifyResult & { migration?: { state: string; statusLine: string } }): string {
  return `${JSON.stringify(r)}\n`;
}
