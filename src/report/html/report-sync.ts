/**
 * The cutover timeline: every `sync-round` line of the run log (the rounds of `sync` and the final
 * delta of `sync --final`), with the lag over time. The counts of the migration stay the ledger's;
 * this is only what each round did and saw.
 */
import type { RunLogLine } from '../../checkpoint/run-log-file.js';
import type { SyncRoundLine } from '../../pipeline/sync/sync-lag.js';
import { formatDuration } from '../summary.js';
import { escapeHtml as e } from './escape.js';
import { lineChart } from './svg-chart.js';

/** A round with the time its line was written (the round's end). */
export type SyncRound = SyncRoundLine & { t: number };

export function syncRoundsOf(lines: readonly RunLogLine[]): SyncRound[] {
  return lines.filter((l) => l.type === 'sync-round').map((l) => l as unknown as SyncRound);
}

const n = (v: number) => v.toLocaleString('en-US');
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
const pulledOf = (r: SyncRound) => Object.values(r.pulled).reduce((sum, k) => sum + k, 0);
const lagWords = (r: SyncRound) => (r.lagMs === undefined ? '–' : formatDuration(r.lagMs));
const label = (r: SyncRound) => (r.final ? 'final' : String(r.round));

/** The rounds as table rows: when, what crossed, what verify found, the lag. */
function rows(rounds: SyncRound[]): string[][] {
  return rounds.map((r) => [
    label(r),
    utc(r.t),
    `${n(pulledOf(r))}${r.kind === 'full' ? ' (everything)' : ''}`,
    n(r.imported),
    n(r.rejected),
    `${n(r.verified.present)} of ${n(r.verified.expected)}`,
    n(r.verified.missing + r.verified.different),
    lagWords(r),
  ]);
}

/** A week of rounds a minute apart is 10,000 lines: the table shows the latest, the chart a spread. */
const ROWS_SHOWN = 30;
const POINTS_DRAWN = 400;

const latest = (rounds: SyncRound[]) => rounds.slice(-ROWS_SHOWN);
const earlierWords = (rounds: SyncRound[]) =>
  rounds.length > ROWS_SHOWN ? `${n(rounds.length - ROWS_SHOWN)} earlier rounds are in the run log.` : '';

/** At most POINTS_DRAWN rounds, evenly by position, the last always kept. */
function spread(rounds: SyncRound[]): SyncRound[] {
  if (rounds.length <= POINTS_DRAWN) return rounds;
  const step = rounds.length / POINTS_DRAWN;
  const kept = Array.from({ length: POINTS_DRAWN - 1 }, (_, i) => rounds[Math.floor(i * step)]);
  return [...kept, rounds[rounds.length - 1]];
}

const HEAD = ['round', 'ended', 'pulled', 'imported', 'rejected', 'verified', 'not across', 'lag'];

export function renderSyncHtml(rounds: SyncRound[]): string {
  if (rounds.length === 0) return '';
  const first = rounds[0].t;
  const chart = lineChart({
    title: 'Lag: the newest message on the source against the newest verified on the service',
    yLabel: 'lag (s)',
    xLabel: 'time since the first round',
    formatX: (x) => formatDuration(x),
    markers: rounds.filter((r) => r.final).map((r) => ({ x: r.t - first, label: 'final' })),
    series: [
      {
        name: 'lag',
        color: '#cf222e',
        segments: [
          spread(rounds.filter((r) => r.lagMs !== undefined)).map((r) => ({
            x: r.t - first,
            y: (r.lagMs ?? 0) / 1000,
          })),
        ],
      },
    ],
  });
  const head = `<tr>${HEAD.map((h, i) => `<th${i > 1 ? ' class="n"' : ''}>${e(h)}</th>`).join('')}</tr>`;
  const shown = latest(rounds);
  const body = rows(shown).map(
    (cells, i) =>
      `<tr data-round="${e(label(shown[i]))}">${cells
        .map((c, j) => `<td${j > 1 ? ' class="n"' : ''}>${e(c)}</td>`)
        .join('')}</tr>`,
  );
  const final = rounds.findLast((r) => r.final);
  const finalWords = final
    ? `<p data-figure="cutover.final">The final delta pulled ${n(pulledOf(final))} records and imported ` +
      `${n(final.imported)}; the full verify found ${n(final.verified.present)} of ${n(final.verified.expected)} ` +
      `on the service, ${n(final.notAcross)} not across.</p>`
    : '<p class="muted">No final round yet: <code>sync --final</code> makes the cutover.</p>';
  const earlier = earlierWords(rounds);
  return (
    `<h2>Cutover timeline</h2>${finalWords}${chart}<table class="sync">${head}${body.join('')}</table>` +
    (earlier ? `<p class="muted">${e(earlier)}</p>` : '')
  );
}

export function renderSyncMarkdown(rounds: SyncRound[]): string[] {
  if (rounds.length === 0) return [];
  const md = (text: string) => text.replace(/\|/g, '\\|');
  const out = [
    '### Cutover timeline',
    '',
    `| ${HEAD.join(' | ')} |`,
    `|---|---|${HEAD.slice(2)
      .map(() => '--:')
      .join('|')}|`,
  ];
  for (const cells of rows(latest(rounds))) out.push(`| ${cells.map(md).join(' | ')} |`);
  out.push('');
  const earlier = earlierWords(rounds);
  if (earlier) out.push(earlier, '');
  return out;
}
