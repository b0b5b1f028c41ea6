import type { EntityName } from '../entities/types.js';
import type { EntityCounts } from '../pipeline/events.js';
import { allSkippedLine, type ImportSummary } from '../pipeline/import/summary.js';
import { type CountKey, OUTCOME_TERMS, figuresOf } from './figures.js';
import { plural, wasOrWere, wrapText } from './words.js';
import { retentionLastLine } from '../pipeline/retention.js';

type Row = [label: string, cell: (c: EntityCounts) => string];

const count = (key: CountKey) => (c: EntityCounts) => String(c[key]);

/** The summary's rows: the outcome in the words the bars use, then the traffic and the pace. */
const ROWS: Row[] = [
  ['read', count('read')],
  ...OUTCOME_TERMS.map(([key, label]): Row => [label, count(key)]),
  ['requests', count('requests')],
  ['retries', count('retries')],
  ['records/s', (c) => figuresOf(c, undefined).perSec.toFixed(1)],
  ['elapsed', (c) => formatDuration(c.elapsedMs)],
];

/** The rows, with one under `skipped` for each reason a record was skipped for. */
function rowsFor(summary: ImportSummary): Row[] {
  const reasons = Object.keys(summary.totals.skippedBy).sort();
  const at = ROWS.findIndex(([label]) => label === 'skipped') + 1;
  const byReason = reasons.map((reason): Row => [`  ${reason}`, (c) => String(c.skippedBy?.[reason] ?? 0)]);
  return [...ROWS.slice(0, at), ...byReason, ...ROWS.slice(at)];
}

export const formatDuration = (ms: number): string => {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${(ms / 1000).toFixed(1)}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h ${m}m ${s % 60}s` : `${m}m ${s % 60}s`;
};

/**
 * A plain-text table with one column per entity (and the total), one row per figure: it stays under
 * 80 columns with counts up to ten digits, in a terminal and in a CI log alike, and a new figure is
 * one more row, never a wider table.
 */
export function formatSummaryTable(summary: ImportSummary): string {
  const entries = Object.entries(summary.entities) as Array<[EntityName, EntityCounts]>;
  const total: [string, EntityCounts] = ['total', { ...summary.totals, elapsedMs: summary.elapsedMs }];
  const columns = entries.length === 1 ? entries : [...entries, total];
  const table = [
    ['', ...columns.map(([name]) => name)],
    ...rowsFor(summary).map(([label, cell]) => [label, ...columns.map(([, c]) => cell(c))]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return table.map((cells) => line(cells).trimEnd()).join('\n');
}

/**
 * The table and what it means in a few short lines, word-wrapped to `width` (a terminal's; none in a
 * log, where a line is better left whole for grep).
 */
export function formatSummaryText(summary: ImportSummary, width?: number): string {
  const took = formatDuration(summary.elapsedMs);
  const rejected = summary.totals.rejected;
  const words: string[] = [];
  switch (summary.status) {
    case 'completed':
      // Left out as too old is not "in": the last line says how many and why.
      if (summary.totals.read === 0) words.push(`Done in ${took}.`);
      else
        words.push(
          summary.allMessagesSkipped
            ? `Done in ${took}, but no message is in.`
            : `Done in ${took}: every record is in${summary.retention ? ' but the messages left out as too old' : ''}.`,
        );
      break;
    case 'completed-with-rejects': {
      const earlier = summary.totals.rejectedEarlier;
      const now = rejected - earlier;
      const parts: string[] = [];
      if (now > 0) parts.push(`${plural(now, 'record')} ${wasOrWere(now)} rejected`);
      const files = summary.totals.fileProblems;
      if (files > 0) parts.push(`${plural(files, 'file')} could not be read whole`);
      if (earlier > 0)
        parts.push(`${plural(earlier, 'record')} ${earlier === 1 ? 'is' : 'are'} still rejected from earlier runs`);
      if (parts.length > 0) words.push(`Done in ${took}, but ${parts.join(' and ')}: see ${summary.rejects}`);
      const blocked = summary.totals.blocked;
      if (blocked > 0) {
        const held = `${plural(blocked, 'record')} ${blocked === 1 ? 'is' : 'are'} blocked`;
        const why = 'their user or group is not in; they are sent once it is (chat-migrate status lists it)';
        words.push(`${parts.length > 0 ? '' : `Done in ${took}, but `}${held}: ${why}`);
      }
      break;
    }
    case 'interrupted':
      words.push(`Stopped. Progress is saved in ${summary.checkpoint};`, 'run the same command again to resume.');
      break;
    case 'failed':
      words.push(`error: ${summary.error!.message} [${summary.error!.code}]`);
      if (summary.error!.hint) words.push(`  ${summary.error!.hint}`);
      words.push(`Progress is saved in ${summary.checkpoint};`, 'run the same command again to resume.');
      break;
  }
  words.push(...mediaLines(summary));
  // The run's own outcome above; the migration as a whole (every run so far) from the ledger.
  if (summary.migration) words.push(`Migration: ${summary.migration.statusLine}`);
  if (summary.retention) words.push(retentionLastLine(summary.retention));
  if (summary.allMessagesSkipped) words.push(allSkippedLine(summary.allMessagesSkipped));
  if (summary.status === 'completed' && summary.totals.read === 0)
    words.push("No record was read: the export's files hold none (are the config's paths, or --from, the export?).");
  const lines = width === undefined ? words : words.flatMap((line) => wrapText(line, width));
  return ['', formatSummaryTable(summary), '', ...lines, ''].join('\n');
}

/** What the media pass did, and the files it could not carry (the first ones; all in its problems list). */
function mediaLines({ media }: ImportSummary): string[] {
  if (media === undefined) return [];
  const lines = [
    `Media: ${plural(media.files, 'file')}: ${media.uploaded} uploaded (${media.bytes} bytes), ` +
      `${media.reused} already stored, ${media.failed} not carried.`,
  ];
  for (const f of media.failures) lines.push(`  not carried: ${f.source}: ${f.reason}`);
  if (media.failed > media.failures.length) lines.push(`  ... all ${media.failed} are listed in ${media.problems}`);
  else if (media.failed > 0) lines.push(`  listed in ${media.problems}`);
  if (media.failed > 0)
    lines.push('  their messages wait in the rejects file (media.not-carried); every later run tries them again');
  return lines;
}
