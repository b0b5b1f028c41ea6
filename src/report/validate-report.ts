import type { LocatedProblem, RetentionNote, ValidateResult } from '../pipeline/validate/validate-result.js';
import { HOW_TO_SEND_OLD, retentionLastLine, type RetentionOutcome } from '../pipeline/retention.js';
import { unlistedHostsText } from '../media/unlisted-hosts.js';
import { plural } from './words.js';

/** `file:line: entity id: field: message [rule]`, the shape compilers and mmctl use, so editors can jump to it. */
export function formatProblem(p: LocatedProblem): string {
  const singular = p.entity.replace(/s$/, '');
  const who = p.id ? `${singular} ${p.id}` : singular;
  const field = p.field ? `${p.field}: ` : '';
  return `${p.file}:${p.line}: ${who}: ${field}${p.message} [${p.rule}]`;
}

/** Messages read and every one skipped on purpose (none beyond the window, which has its own line). */
export function allMessagesSkipped(r: ValidateResult): boolean {
  const m = r.byEntity.messages;
  return m !== undefined && m.records > 0 && m.skipped === m.records && r.beyondRetention === 0;
}

/** `outcome`: the messages left out as too old, said on the last line (pipeline/retention.ts). */
export function formatValidateText(r: ValidateResult, outcome?: RetentionOutcome): string {
  const out: string[] = [];
  if (r.errors.length > 0) {
    out.push(`Errors (${r.errorCount}):`);
    for (const p of r.errors) out.push(`  ${formatProblem(p)}`);
  }
  if (r.warnings.length > 0) {
    out.push(`Warnings (${r.warningCount}):`);
    for (const p of r.warnings) out.push(`  ${formatProblem(p)}`);
  }
  for (const n of r.notChecked) out.push(`note: ${n}`);
  if (r.retention) out.push(...retentionLines(r.beyondRetention, r.retention));
  if (r.expiringMedia) out.push(expiringMediaWarning(r.expiringMedia));
  if (r.unlistedMedia) out.push(`warning: ${unlistedHostsText(r.unlistedMedia)}`);
  const dropped = r.errorCount + r.warningCount - r.errors.length - r.warnings.length;
  if (dropped > 0) out.push(`(${plural(dropped, 'more problem', 'more problems')} counted but not listed)`);
  if (r.stoppedEarly) {
    out.push(`stopped after ${plural(r.errorCount, 'error')} (--max-errors); the rest of the export was not checked`);
  }
  const rules = Object.entries(r.byRule).sort((a, b) => b[1] - a[1]);
  if (rules.length > 0) {
    out.push('', 'Problems by rule:');
    for (const [rule, n] of rules) out.push(`  ${rule.padEnd(32)} ${n}`);
  }
  out.push('', 'By entity:');
  for (const [entity, c] of Object.entries(r.byEntity)) {
    const counts = `${plural(c!.records, 'record')}, ${plural(c!.errors, 'error')}, ${plural(c!.warnings, 'warning')}`;
    out.push(`  ${entity.padEnd(9)} ${counts}, ${c!.skipped} skipped`);
  }
  const read = plural(r.recordsRead, 'record');
  const warnings = plural(r.warningCount, 'warning');
  const errors = r.errorCount ? ` (${plural(r.errorCount, 'error')})` : '';
  out.push(
    '',
    r.recordsRead === 0 && !r.stoppedEarly
      ? `FAILED: no record read: the export's files hold none${errors}`
      : r.allMessagesSkipped !== undefined
        ? `FAILED: all ${plural(r.allMessagesSkipped, 'message')} read would be skipped: ` +
          `import would send none${errors} (By entity above; docs/presets.md names the options that include them)`
        : r.errorCount === 0
          ? `OK: ${read} read, no errors${r.warningCount ? `, ${warnings}` : ''}`
          : `FAILED: ${read} read, ${plural(r.errorCount, 'error')}, ${warnings}`,
  );
  if (outcome) out.push(retentionLastLine(outcome));
  return `${out.join('\n')}\n`;
}

export function formatValidateJson(r: ValidateResult, outcome?: RetentionOutcome): string {
  return `${JSON.stringify({
    ok: r.errorCount === 0 && r.recordsRead > 0 && r.allMessagesSkipped === undefined,
    ...(r.allMessagesSkipped === undefined ? {} : { allMessagesSkipped: r.allMessagesSkipped }),
    recordsRead: r.recordsRead,
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    stoppedEarly: r.stoppedEarly,
    problems: [...r.errors, ...r.warnings],
    byRule: r.byRule,
    byEntity: r.byEntity,
    notChecked: r.notChecked,
    ...(r.expiringMedia ? { expiringMedia: r.expiringMedia } : {}),
    ...(r.unlistedMedia ? { unlistedMedia: r.unlistedMedia } : {}),
    beyondRetention: r.beyondRetention,
    ...(r.unreadFiles?.length ? { unreadFiles: r.unreadFiles } : {}),
    ...(r.retention ? { retention: { ...r.retention, chosen: outcome?.chosen, howToSend: HOW_TO_SEND_OLD } } : {}),
  })}\n`;
}

/** The messages import leaves out as too old: how many, from which day, the first of them, how to send them. */
function retentionLines(count: number, note: RetentionNote): string[] {
  const out = [
    `note: ${plural(count, 'message')} sent before ${note.cutoff} ${count === 1 ? 'is' : 'are'} beyond the ` +
      `${note.days}-day retention window (retentionDays): import skips them (beyond-retention), as the ` +
      'service refuses them',
  ];
  for (const { file, line } of note.first) out.push(`  ${file}:${line}`);
  if (count > note.first.length) out.push(`  (${count - note.first.length} more)`);
  const errors = note.errors;
  if (errors) {
    out.push(`  sent with a window that allows them, ${plural(errors.count, 'error')} would be rejected:`);
    for (const p of errors.listed) out.push(`    ${formatProblem(p)}`);
    if (errors.count > errors.listed.length) out.push(`    (${errors.count - errors.listed.length} more)`);
  }
  out.push(`  to send them: ${HOW_TO_SEND_OLD}`);
  return out;
}

/** The one summary warning of attachments that will not outlive the old system (docs/media.md). */
export function expiringMediaWarning(m: NonNullable<ValidateResult['expiringMedia']>): string {
  const hosts = Object.entries(m.byHost)
    .sort((a, b) => b[1] - a[1])
    .map(([host, n]) => `${host} ${n}`)
    .join(', ');
  return (
    `warning: ${plural(m.total, 'attachment')} link to hosts that stop serving them when the old system ` +
    `closes, and "media" does not carry them (${hosts}); see docs/media.md`
  );
}
