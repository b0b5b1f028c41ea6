import type { LedgerRow } from '../../checkpoint/ledger.js';
import { formatDuration } from '../summary.js';
import { escapeHtml as e } from './escape.js';
import { renderCharts } from './report-charts.js';
import { OVERVIEW_ROWS, type ReportData } from './report-data.js';
import { REPORT_CSS } from './report-style.js';
import { renderSyncHtml } from './report-sync.js';
import { renderBlocked, renderFiles, renderMedia, renderRejects, renderResults } from './render-sections.js';

const n = (v: number | undefined) => (v === undefined ? '–' : v.toLocaleString('en-US'));
export const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A number cell the browser test reads back (`data-figure="users.imported"`). */
const cell = (figure: string, v: number | undefined) => `<td class="n" data-figure="${e(figure)}">${n(v)}</td>`;

/** The whole report: one HTML file, no script, no external resource. */
export function renderHtml(data: ReportData): string {
  const start = startWithTarget(data);
  const target = start?.target as { host?: string; appId?: string } | undefined;
  const charts = renderCharts(data);
  const body = [
    `<h1>Migration report</h1>`,
    `<p class="muted">${e(target?.host ?? 'no target yet')}${target?.appId ? ` · app ${e(target.appId)}` : ''}` +
      ` · written ${e(utc(data.generatedAt))}</p>`,
    `<h2>Overview</h2>`,
    `<p class="status ${data.state}" data-figure="status" data-state="${data.state}">${e(data.statusLine)}</p>`,
    overviewFigures(data),
    totalsTable(data),
    renderBlocked(data),
    renderMedia(data),
    runsTable(data),
    renderSyncHtml(data.syncRounds),
    `<h2>Charts</h2>`,
    charts.length > 0 ? charts.join('\n') : '<p class="muted">No samples yet: no import has sent anything.</p>',
    renderResults(data),
    renderRejects(data),
    renderFiles(data),
    environment(data),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Migration report${target?.host ? ` – ${e(target.host)}` : ''}</title>
<style>${REPORT_CSS}</style></head>
<body>
${body.join('\n')}
</body></html>
`;
}

function overviewFigures(data: ReportData): string {
  const figure = (label: string, key: string, value: string) =>
    `<div><b data-figure="${key}">${e(value)}</b><span class="muted">${e(label)}</span></div>`;
  return `<div class="figures">${[
    figure('runs', 'runs', n(data.runs.length)),
    figure('interruptions', 'interruptions', n(data.interruptions)),
    figure('wall time (first start to last end)', 'wall', formatDuration(data.wallMs)),
    figure('sending time', 'sending', formatDuration(data.sendingMs)),
    figure('requests', 'total.requests', n(data.ledger.traffic.requests)),
    figure('429 answers', 'total.rateLimited', n(data.ledger.traffic.rateLimited)),
    figure('retries', 'total.retries', n(data.ledger.traffic.retries)),
  ].join('')}</div>`;
}

function totalsTable(data: ReportData): string {
  const columns = [...(Object.entries(data.entities) as Array<[string, LedgerRow]>), ['total', data.total] as const];
  if (columns.length === 1) return '';
  const reasons = Object.keys(data.total.skippedBy).sort();
  const head = `<tr><th></th>${columns.map(([name]) => `<th class="n">${e(name)}</th>`).join('')}</tr>`;
  const rows: string[] = [];
  for (const { label, key, optional } of OVERVIEW_ROWS) {
    if (optional && !data.total[key]) continue;
    rows.push(
      `<tr><td>${e(label)}</td>${columns.map(([name, row]) => cell(`${name}.${key}`, row[key] as number)).join('')}` +
        '</tr>',
    );
    if (key !== 'skipped') continue;
    for (const reason of reasons) {
      const cells = columns.map(([name, row]) => cell(`${name}.skipped.${reason}`, row.skippedBy[reason] ?? 0));
      rows.push(`<tr class="sub"><td>${e(reason)}</td>${cells.join('')}</tr>`);
    }
  }
  return `<table class="totals">${head}${rows.join('')}</table>`;
}

function runsTable(data: ReportData): string {
  if (data.runs.length === 0) return '<p class="muted">No run is in the run log yet.</p>';
  const rows = data.runs.map((run, i) => {
    const notes = [
      run.resumed ? 'resumed' : '',
      run.interrupted ? `stopped by ${run.interrupted}` : '',
      run.error ? `${run.error.code}${run.error.message ? `: ${run.error.message}` : ''}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const records = run.summary
      ? n(run.summary.totals.imported + run.summary.totals.alreadyPresent + run.summary.totals.rejected)
      : '';
    return (
      `<tr data-run="${e(run.run)}"><td class="n">${i + 1}</td><td>${e(run.command)}</td>` +
      `<td>${e(utc(run.startedAt))}</td>` +
      `<td class="n">${e(formatDuration(run.endedAt - run.startedAt))}</td><td>${e(run.status)}</td>` +
      `<td>${e(notes)}</td><td class="n">${records}</td></tr>`
    );
  });
  return (
    `<h2>Runs</h2><table><tr><th class="n">#</th><th>command</th><th>started</th><th class="n">took</th>` +
    `<th>status</th><th>notes</th><th class="n">records answered</th></tr>${rows.join('')}</table>`
  );
}

/** The last run that named a target (verify or replay may not): what the header and environment show. */
const startWithTarget = (data: ReportData) => (data.runs.findLast((r) => r.start.target) ?? data.runs.at(-1))?.start;

function environment(data: ReportData): string {
  const start = startWithTarget(data);
  const settings = (start?.settings ?? {}) as Record<string, unknown>;
  const target = (start?.target ?? {}) as { host?: string; appId?: string };
  const rows: Array<[string, unknown]> = [
    ['tool version', start?.version],
    ['Node.js', start?.node],
    ['platform', start?.platform],
    ['target host', target.host],
    ['app id', target.appId],
    ['rate limit (requests / min)', settings.requestsPerMinute],
    ['batch size', settings.batchSize],
    ['concurrency', settings.concurrency],
    ['retries', settings.retries],
    ['config digest (secrets left out)', start?.configDigest],
    ['checkpoint', data.checkpointPath],
    ['run log', data.runLogPath],
    ['rejects file', data.rejectsPath],
  ];
  const body = rows
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<tr><th>${e(k)}</th><td><code>${e(String(v))}</code></td></tr>`)
    .join('');
  const torn =
    data.unreadableLines > 0
      ? `<p class="muted">${n(data.unreadableLines)} run log line(s) could not be read (cut short by a crash).</p>`
      : '';
  const seen = '<p class="muted">As the latest run that names the target saw it.</p>';
  return `<h2>Environment</h2>${seen}<table>${body}</table>${torn}`;
}
