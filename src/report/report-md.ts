import type { LedgerRow } from '../checkpoint/ledger.js';
import { formatDuration } from './summary.js';
import { plural } from './words.js';
import { blockedSentence, PARENTS_SHOWN, undoneWords } from './html/render-sections.js';
import { OVERVIEW_ROWS, type ReportData } from './html/report-data.js';
import { renderSyncMarkdown } from './html/report-sync.js';

const n = (v: number | undefined) => (v === undefined ? '–' : v.toLocaleString('en-US'));
/** A table cell: a pipe or a line break would end it. */
const md = (text: string) => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** The report's overview and rejects as Markdown: for a CI job's summary page or a ticket. */
export function renderMarkdown(data: ReportData): string {
  const out = ['## Migration report', '', `**${md(data.statusLine)}**`, ''];
  out.push(
    `${plural(data.runs.length, 'run')}, ${plural(data.interruptions, 'interruption')}; ` +
      `wall time ${formatDuration(data.wallMs)}, sending time ${formatDuration(data.sendingMs)}; ` +
      `${n(data.ledger.traffic.requests)} requests, ${n(data.ledger.traffic.rateLimited)} answered 429, ` +
      `${n(data.ledger.traffic.retries)} retries.`,
    '',
  );
  const columns = [...(Object.entries(data.entities) as Array<[string, LedgerRow]>), ['total', data.total] as const];
  if (columns.length > 1) {
    out.push(`| | ${columns.map(([name]) => name).join(' | ')} |`, `|---|${columns.map(() => '--:').join('|')}|`);
    for (const { label, key, optional } of OVERVIEW_ROWS) {
      if (optional && !data.total[key]) continue;
      out.push(`| ${label} | ${columns.map(([, r]) => n(r[key] as number)).join(' | ')} |`);
    }
    for (const reason of Object.keys(data.total.skippedBy).sort())
      out.push(`| skipped: ${md(reason)} | ${columns.map(([, r]) => n(r.skippedBy[reason] ?? 0)).join(' | ')} |`);
    out.push('');
  }
  out.push(...renderSyncMarkdown(data.syncRounds));
  const { media } = data.ledger;
  if (media.notCarried > 0) {
    out.push(`### Attachments not carried: ${n(media.notCarried)} (their messages wait)`, '');
    for (const [reason, count] of Object.entries(media.byReason)) out.push(`- ${n(count)}: ${md(reason)}`);
    for (const x of media.examples) out.push(`- e.g. \`${md(`${x.file}:${x.line}`)}\` ${md(x.url)}`);
    out.push('');
  }
  const parents = data.ledger.blockedParents;
  if (parents.length > 0) {
    out.push(`### Blocked: ${n(data.total.blocked)} records held back by a user or group not in`, '');
    for (const p of parents.slice(0, PARENTS_SHOWN))
      out.push(`- \`${md(`${p.file}:${p.line}`)}\` ${md(blockedSentence(p))}`);
    if (parents.length > PARENTS_SHOWN) out.push(`- … and ${n(parents.length - PARENTS_SHOWN)} more`);
    out.push('');
  }
  if (data.ledger.undone && data.state === 'undone') out.push(undoneWords(data.ledger.undone.setAside), '');
  else if (data.rejects.length === 0) out.push('No record was rejected.', '');
  else {
    out.push(
      '### Rejects',
      '',
      '| code | open | resolved | given up | what it means | what to do | first example |',
      '|---|--:|--:|--:|---|---|---|',
    );
    for (const r of data.rejects) {
      const x = r.examples[0];
      const example = x ? `\`${md(`${x.file}:${x.line}`)}\`` : '';
      out.push(
        `| \`${md(r.code)}\` | ${n(r.open)} | ${n(r.resolved)} | ${n(r.dropped)} | ${md(r.meaning)} | ` +
          `${md(r.action)} | ${example} |`,
      );
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
