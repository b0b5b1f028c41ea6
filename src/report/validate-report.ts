import type { LocatedProblem, ValidateResult } from '../pipeline/validate/validate-result.js';

/** `file:line: entity id: field: message [rule]`, the shape compilers and mmctl use, so editors can jump to it. */
export function formatProblem(p: LocatedProblem): string {
  const singular = p.entity.replace(/s$/, '');
  const who = p.id ? `${singular} ${p.id}` : singular;
  const field = p.field ? `${p.field}: ` : '';
  return `${p.file}:${p.line}: ${who}: ${field}${p.message} [${p.rule}]`;
}

export function formatValidateText(r: ValidateResult): string {
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
  const dropped = r.errorCount + r.warningCount - r.errors.length - r.warnings.length;
  if (dropped > 0) out.push(`(${dropped} more problems counted but not listed)`);
  if (r.stoppedEarly) out.push(`stopped after ${r.errorCount} errors (--max-errors); the rest of the export was not checked`);
  const rules = Object.entries(r.byRule).sort((a, b) => b[1] - a[1]);
  if (rules.length > 0) {
    out.push('', 'Problems by rule:');
    for (const [rule, n] of rules) out.push(`  ${rule.padEnd(32)} ${n}`);
  }
  out.push('', 'By entity:');
  for (const [entity, c] of Object.entries(r.byEntity)) {
    out.push(`  ${entity.padEnd(9)} ${c!.records} records, ${c!.errors} errors, ${c!.warnings} warnings, ${c!.skipped} skipped`);
  }
  out.push(
    '',
    r.errorCount === 0
      ? `OK: ${r.recordsRead} records read, no errors${r.warningCount ? `, ${r.warningCount} warnings` : ''}`
      : `FAILED: ${r.recordsRead} records read, ${r.errorCount} errors, ${r.warningCount} warnings`,
  );
  return `${out.join('\n')}\n`;
}

export function formatValidateJson(r: ValidateResult): string {
  return `${JSON.stringify({
    ok: r.errorCount === 0,
    recordsRead: r.recordsRead,
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    stoppedEarly: r.stoppedEarly,
    problems: [...r.errors, ...r.warnings],
    byRule: r.byRule,
    byEntity: r.byEntity,
    notChecked: r.notChecked,
  })}\n`;
}
