import type { EntityName } from '../entities/types.js';
import type { EntityCounts } from '../pipeline/events.js';
import type { ImportSummary } from '../pipeline/import/summary.js';

const COLUMNS: Array<[keyof EntityCounts, string]> = [
  ['read', 'read'],
  ['imported', 'imported'],
  ['alreadyPresent', 'already there'],
  ['rejected', 'rejected'],
  ['skipped', 'skipped'],
  ['resumed', 'done earlier'],
  ['requests', 'requests'],
  ['retries', 'retries'],
];

export const formatDuration = (ms: number): string => {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${(ms / 1000).toFixed(1)}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h ${m}m ${s % 60}s` : `${m}m ${s % 60}s`;
};

/** A plain-text table, one row per entity: readable in a terminal and in a CI log alike. */
export function formatSummaryTable(summary: ImportSummary): string {
  const header = ['entity', ...COLUMNS.map(([, label]) => label), 'elapsed'];
  const rows = (Object.entries(summary.entities) as Array<[EntityName, EntityCounts]>).map(([name, c]) => [
    name,
    ...COLUMNS.map(([key]) => String(c[key])),
    formatDuration(c.elapsedMs),
  ]);
  rows.push(['total', ...COLUMNS.map(([key]) => String(summary.totals[key as keyof ImportSummary['totals']])), formatDuration(summary.elapsedMs)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
