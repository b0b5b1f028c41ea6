// The report's charts as Chromium draws them, after a real run against the sandbox at a low rate limit:
// the requests line never rises above the configured limit, every chart has the same even time ticks,
// and p50 and p95 latency both show where they are equal. Skipped, saying why, where no Chromium is.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { generatedWorkspace, runCli, sandbox } from '../helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const LIMIT = 120;

/** Seconds of a tick's words: `12s`, `1m30`, `2h05`. */
function secondsOf(label) {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(\d+)?s?$/.exec(label);
  assert.ok(m, `a tick reads ${label}`);
  return label.includes('h') ? Number(m[1]) * 3600 + Number(m[3] ?? 0) * 60 : Number(m[2] ?? 0) * 60 + Number(m[3]);
}

test('charts: no rate above the limit, one even time axis, p50 and p95 both visible', { skip: missing }, async () => {
  const sb = await sandbox({ latencyMs: 30 });
  const profile = await mkdtemp(path.join(tmpdir(), 'cm-chromium-'));
  let browser;
  try {
    const { dir } = await generatedWorkspace(sb, { users: 60, groups: 2, membersPerGroup: 5, messages: 1100 });
    const ran = await runCli(['import', '--requests-per-minute', String(LIMIT)], { cwd: dir });
    assert.equal(ran.code, 0, ran.stderr);
    const made = await runCli(['report', '--json'], { cwd: dir });
    assert.equal(made.code, 0, made.stderr);
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    const page = await browser.newPage();
    await page.goto(pathToFileURL(JSON.parse(made.stdout).report).href, { waitUntil: 'load' });

    const charts = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((svg) => {
        const ticks = [...svg.querySelectorAll('text.tick')];
        const lines = [...svg.querySelectorAll('polyline.series')].map((p) => ({
          series: p.getAttribute('data-series'),
          width: Number(p.getAttribute('stroke-width')),
          points: [...p.points].map((pt) => ({ x: pt.x, y: pt.y })),
        }));
        return {
          title: svg.getAttribute('aria-label'),
          xTicks: ticks
            .filter((t) => t.getAttribute('text-anchor') === 'middle')
            .map((t) => ({ x: Number(t.getAttribute('x')), label: t.textContent })),
          lines,
        };
      }),
    );
    const chart = (title) => charts.find((c) => c.title.startsWith(title));

    // In SVG a higher rate is a smaller y: no requests point above the configured limit's line.
    const requests = chart('Requests per minute');
    const limitY = requests.lines.find((l) => l.series === 'rate limit (configured)').points[0].y;
    const sent = requests.lines.filter((l) => l.series === 'requests / min').flatMap((l) => l.points);
    assert.ok(sent.length >= 5, `${sent.length} points`);
    for (const p of sent) assert.ok(p.y >= limitY - 0.5, `a point at y=${p.y} is above the limit's line at ${limitY}`);

    // One time axis: the same ticks at the same places on every chart, at a round, even step from 0.
    const first = charts[0].xTicks;
    for (const c of charts) assert.deepEqual(c.xTicks, first, `${c.title}: the time axis of the others`);
    const seconds = first.map((t) => secondsOf(t.label));
    assert.equal(seconds[0], 0);
    const step = seconds[1] - seconds[0];
    assert.ok([1, 2, 5, 10, 15, 30, 60].includes(step), `a round step: ${seconds}`);
    assert.deepEqual(
      seconds,
      seconds.map((_, i) => i * step),
      'even ticks',
    );
    const gaps = first.slice(1).map((t, i) => Math.round((t.x - first[i].x) * 10) / 10);
    assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 0.2, `evenly spaced: ${gaps}`);

    // Latency: both drawn; p50 on top of a wider p95, so a p95 equal to p50 still shows beside it.
    const latency = chart('Request latency');
    const order = latency.lines.map((l) => l.series);
    assert.ok(order.indexOf('p95') >= 0 && order.indexOf('p50') > order.indexOf('p95'), `order ${order}`);
    const p50 = latency.lines.find((l) => l.series === 'p50');
    const p95 = latency.lines.find((l) => l.series === 'p95');
    assert.ok(p50.points.length >= 2 && p95.points.length >= 2);
    assert.ok(p95.width >= p50.width + 3, `p95 ${p95.width} wide, p50 ${p50.width}`);
    const legend = await page.$$eval('svg.chart[aria-label="Request latency"] text.legend', (t) =>
      t.map((e) => e.textContent),
    );
    assert.deepEqual(legend.sort(), ['p50', 'p95']);
  } finally {
    await browser?.close();
    await sb.close();
    await rm(profile, { recursive: true, force: true });
  }
});
