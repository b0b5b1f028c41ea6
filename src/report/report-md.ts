import { formatDuration } from './summary.js';
import { plural } from './words.js';
import type { EntityRow, ReportData } from './html/report-data.js';

const n = (v: number | undefined) => (v === undefined ? '–' : v.toLocaleString('en-US'));
/** A table cell: a pipe or a line break would end it. */
const md = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

const ROWS: Array<[string, keyof EntityRow]> = [
  ['in the export', 'inExport'],
  ['imported', 'imported'],
  ['already there', 'alreadyPresent'],
  ['rejected (open)', 'rejected'],
  ['skipped', 'skipped'],
  ['not yet sent', 'notYetSent'],
];

/** The report's overview and rejects as Markdown: for a CI job's summary page or a ticket. */
export function renderMarkdown(data: ReportData): string {
  const out = ['## Migration report', '', `**${md(data.statusLine)}**`, ''];
  out.push(
    `${plural(data.runs.length, 'run')}, ${plural(data.interruptions, 'interruption')}; ` +
      `wall time ${formatDuration(data.wallMs)}, sending time ${formatDuration(data.sendingMs)}; ` +
      `${n(data.total.requests)} requests, ${n(data.total.retries)} retries.`,
    '',
  );
  const columns = [...(Object.entries(data.entities) as Array<[string, EntityRow]>), ['total', data.total] as const];
  if (columns.length > 1) {
    out.push(`| | ${columns.map(([name]) => name).join(' | ')} |`, `|---|${columns.map(() => '--:').join('|')}|`);
    for (const [label, key] of ROWS)
      out.push(`| ${label} | ${columns.map(([, r]) => n(r[key] as number)).join(' | ')} |`);
    for (const reason of Object.keys(data.total.skippedBy).sort())
      out.push(`| skipped: ${md(reason)} | ${columns.map(([, r]) => n(r.skippedBy[reason] ?? 0)).join(' | ')} |`);
    out.push('');
  }
  if (data.rejects.length === 0) out.push('No record was rejected.', '');
  else {
    out.push(
      '### Rejects',
      '',
      '| code | open | resolved | what it means | what to do | first example |',
      '|---|--:|--:|---|---|---|',
    );
    for (const r of data.rejects) {
      const x = r.examples[0];
      const example = x ? `\`${md(`${x.file}:${x.line}`)}\`` : '';
      out.push(
        `| \`${md(r.code)}\` | ${n(r.open)} | ${n(r.resolved)} | ${md(r.meaning)} | ${md(r.action)} | ${example} |`,
      );
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
