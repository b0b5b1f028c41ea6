// The report as a person sees it: rendered by headless Chromium (Debian's `chromium` package), its
// charts drawn, its numbers those of the run's --json summary, no console error and no request
// beyond the file itself. Skipped, saying why, only where no Chromium is installed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { generatedWorkspace, runCli, sandbox } from '../helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
if (missing) console.log(`# report-browser: skipped: ${missing}`);

/** Flags that work in a container: no sandbox, no GPU, nothing fetched in the background. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

test('the report renders in Chromium: charts drawn, numbers of the summary, no console error', {
  skip: missing,
}, async () => {
  const sb = await sandbox({ latencyMs: 40, seed: 3, faults: { spurious429: 0.1 } });
  const profile = await mkdtemp(path.join(tmpdir(), 'cm-chromium-'));
  let browser;
  try {
    const { dir } = await generatedWorkspace(sb, { users: 60, groups: 3, membersPerGroup: 8, messages: 900 });
    // Paced to last a few seconds: the charts get a point every 2 s and at each phase's end.
    const ran = await runCli(['import', '--json', '--requests-per-minute', '300'], { cwd: dir });
    assert.equal(ran.code, 0, ran.stderr);
    const summary = JSON.parse(ran.stdout);
    const made = await runCli(['report', '--json'], { cwd: dir });
    assert.equal(made.code, 0, made.stderr);
    const url = pathToFileURL(JSON.parse(made.stdout).report).href;

    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    const page = await browser.newPage();
    const problems = [];
    const requests = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url, { waitUntil: 'load' });

    const charts = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const drawn = [...svg.querySelectorAll('polyline.series')].map((p) => ({
          series: p.getAttribute('data-series'),
          points: p.points.numberOfItems,
          length: p.getTotalLength(),
        }));
        return { title: svg.getAttribute('aria-label'), width: box.width, height: box.height, drawn };
      }),
    );
    assert.ok(charts.length >= 4, `${charts.length} charts`);
    for (const chart of charts) {
      assert.ok(chart.width > 300 && chart.height > 100, `${chart.title} has a size: ${chart.width}x${chart.height}`);
      assert.ok(
        chart.drawn.some((d) => d.points >= 2 && d.length > 0),
        `${chart.title} drew a line: ${JSON.stringify(chart.drawn)}`,
      );
    }

    const figure = (name) => page.$eval(`[data-figure="${name}"]`, (el) => el.textContent.trim());
    const number = async (name) => Number((await figure(name)).replaceAll(',', ''));
    for (const [entity, counts] of Object.entries(summary.entities)) {
      assert.equal(await number(`${entity}.imported`), counts.imported, `${entity}.imported`);
      assert.equal(await number(`${entity}.inExport`), counts.read, `${entity}.inExport`);
      assert.equal(await number(`${entity}.open`), counts.rejected, `${entity}.open`);
      assert.equal(await number(`${entity}.skipped`), counts.skipped, `${entity}.skipped`);
    }
    for (const key of ['imported', 'alreadyPresent', 'requests', 'retries'])
      assert.equal(await number(`total.${key}`), summary.totals[key], `total.${key}`);
    assert.equal(await figure('status'), 'Complete: every record of the export is in.');
    assert.equal(await number('runs'), 1);

    // Printed: nothing wider than the page, and Chromium makes a PDF of it.
    await page.emulateMedia({ media: 'print' });
    await page.setViewportSize({ width: 794, height: 1123 });
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    assert.ok(overflow <= 0, `printed, the page is ${overflow} px wider than A4`);
    const pdf = await page.pdf({ format: 'A4' });
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');

    assert.deepEqual(problems, [], 'no console error');
    assert.deepEqual(requests, [url], 'nothing loaded but the file itself');
  } finally {
    await browser?.close();
    await sb.close();
    await rm(profile, { recursive: true, force: true });
  }
});

test("the report's run markers: numbered as the runs table numbers them, no label over another", {
  skip: missing,
}, async () => {
  const sb = await sandbox({ latencyMs: 20, seed: 4 });
  const profile = await mkdtemp(path.join(tmpdir(), 'cm-chromium-'));
  let browser;
  try {
    const { dir } = await generatedWorkspace(sb, { users: 20, groups: 2, membersPerGroup: 4, messages: 200 });
    assert.equal((await runCli(['validate'], { cwd: dir })).code, 0, 'run 1: no chart of its own');
    assert.equal((await runCli(['import', '--requests-per-minute', '600'], { cwd: dir })).code, 0);
    for (let i = 0; i < 2; i++) assert.equal((await runCli(['import'], { cwd: dir })).code, 0);
    // The first import as a long one (an hour, as a real migration's): the two short runs after it
    // get markers close together, without the test waiting an hour.
    const log = path.join(dir, '.migrate-checkpoint.runs.ndjson');
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const longRun = lines.filter((l) => l.type === 'run-start' && l.command === 'import')[0].run;
    const validateRun = lines.find((l) => l.type === 'run-start' && l.command === 'validate').run;
    const moved = lines.map((l) => {
      if (l.run === validateRun) return { ...l, t: l.t - 7_200_000 };
      return l.run === longRun && l.type === 'run-start' ? { ...l, t: l.t - 3_600_000 } : l;
    });
    await writeFile(log, moved.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const made = await runCli(['report', '--json'], { cwd: dir });
    assert.equal(made.code, 0, made.stderr);
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    const page = await browser.newPage();
    await page.goto(pathToFileURL(JSON.parse(made.stdout).report).href, { waitUntil: 'load' });
    if (process.env.REPORT_SCREENSHOT) await page.screenshot({ path: process.env.REPORT_SCREENSHOT, fullPage: true });
    const charts = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((svg) =>
        [...svg.querySelectorAll('text.marker-label')].map((t) => {
          const b = t.getBBox();
          return { text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height };
        }),
      ),
    );
    const table = await page.$$eval('tr[data-run]', (rows) =>
      rows.map((r) => [r.cells[0].textContent.trim(), r.cells[1].textContent.trim()]),
    );
    const imports = table.filter(([, command]) => command === 'import').map(([n]) => `run ${n}`);
    assert.deepEqual(imports, ['run 2', 'run 3', 'run 4']);
    assert.ok(charts.length >= 4, `${charts.length} charts`);
    for (const labels of charts) {
      assert.deepEqual(
        labels.map((l) => l.text.split(' (')[0]),
        imports,
      );
      for (const [i, a] of labels.entries())
        for (const b of labels.slice(i + 1)) {
          const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
          assert.ok(apart, `"${a.text}" and "${b.text}" overlap`);
        }
    }
  } finally {
    await browser?.close();
    await sb.close();
    await rm(profile, { recursive: true, force: true });
  }
});
