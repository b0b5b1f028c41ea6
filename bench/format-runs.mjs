// Per format: the parse floor, validate and the unthrottled import, each ratio taken against the
// floors measured right before and right after it. The VM's speed drifts by 10-30% over minutes (its
// floors have been 34% apart within one format), so validate runs `repeat` times, each between two
// floors, and the median of those ratios is the figure: one slow minute no longer decides the row.
import { busyNote, cpuSeconds } from './measure.mjs';
import { fullRequests, verifyArrivals } from './rate-stats.mjs';
import { num, pct } from './table.mjs';

const mean = (list) => list.reduce((sum, f) => sum + f.perSec, 0) / list.length;
const byRatio = (a, b) => a.ratio - b.ratio;

/**
 * Runs floor, validate (x repeat) and import for each format, adds their rows, and returns what was
 * measured: `validates[format]` is the median run, with the highest peak RSS of all its runs.
 */
export async function measureFormats({
  formats,
  only,
  repeat,
  log,
  row,
  measure,
  ds,
  main,
  totalRecords,
  ceiling,
  concurrency,
}) {
  const floors = {};
  const validates = {};
  const imports = {};
  for (const format of formats) {
    const floor = () => measure.measureFloor(format, ds.messages[format], main.messages);
    log(`parse floor ${format} ...`);
    const seen = [await floor()];
    const runs = [];
    if (only.has('validate')) {
      for (let k = 1; k <= repeat; k++) {
        log(`validate ${format}${repeat > 1 ? ` (${k} of ${repeat})` : ''} ...`);
        const v = await measure.runValidate(`validate-${format}${repeat > 1 ? `-${k}` : ''}`, ds, format);
        log(`parse floor ${format} again ...`);
        const before = seen.at(-1);
        const after = await floor();
        seen.push(after);
        Object.assign(v, { floor: mean([before, after]), busy: busyNote(v, before, after) });
        v.ratio = v.perSec / v.floor;
        runs.push(v);
      }
    }
    let run;
    if (only.has('import')) {
      log(`import ${format}, unthrottled sandbox, concurrency ${concurrency} ...`);
      const before = seen.at(-1);
      run = imports[format] = await measure.runImport(`import-${format}`, ds, format, { rpm: 1e9 });
      log(`parse floor ${format} again ...`);
      const after = await floor();
      seen.push(after);
      run.floor = mean([before, after]);
      run.busy = busyNote(run, before, after);
    }

    const perSec = mean(seen);
    floors[format] = { perSec, runs: seen, others: Math.max(...seen.map((f) => f.others ?? 0)) };
    const drift = Math.max(...seen.map((f) => f.perSec)) / Math.min(...seen.map((f) => f.perSec)) - 1;
    const bracket = seen.length > 1 ? ` (${seen.map((f) => num(f.perSec)).join(', ')})` : '';
    row(
      'floor',
      `parse floor ${format} (messages file, parser only)`,
      `${num(perSec)} rec/s${bracket}${busyNote(floors[format])}`,
      '-',
      null,
    );
    if (drift > 0.1)
      row(
        'floor',
        `parse floor ${format}: machine speed drifted`,
        `${pct(drift, 0)} between its floors`,
        '< 10%',
        null,
      );

    if (runs.length > 0) {
      // With an even count, the mean of the middle two.
      const sorted = [...runs].sort(byRatio);
      const [lo, hi] = [sorted[Math.floor((runs.length - 1) / 2)], sorted[Math.ceil((runs.length - 1) / 2)]];
      const median = {
        ...lo,
        ratio: (lo.ratio + hi.ratio) / 2,
        perSec: (lo.perSec + hi.perSec) / 2,
        floor: (lo.floor + hi.floor) / 2,
      };
      const maxRssBytes = Math.max(...runs.map((r) => r.rss?.maxRssBytes ?? 0));
      validates[format] = {
        ...median,
        rss: { ...median.rss, maxRssBytes },
        runs: runs.map(({ perSec, floor: f, ratio }) => ({ perSec, floor: f, ratio })),
      };
      const all = runs.length > 1 ? `; runs ${runs.map((r) => pct(r.ratio)).join(', ')}` : '';
      const label =
        runs.length > 1
          ? `median of ${runs.length} runs, each to the floors around it`
          : 'ratio to the floors around it';
      row(
        'validate',
        `validate ${format}: records/s (${label})`,
        `${num(median.perSec)} rec/s (${pct(median.ratio)} of ${num(median.floor)}${all})${median.busy}`,
        '>= 60% of floor',
        median.ratio >= 0.6,
      );
      const broken = runs.find((r) => r.errors !== 0 || r.exit !== 0);
      if (broken)
        row(
          'validate',
          `validate ${format}: generated export is valid`,
          `${broken.errors} errors, exit ${broken.exit}`,
          '0 errors',
          false,
        );
    }
    if (run) {
      const importPerSec = totalRecords(main) / (run.ms / 1000);
      const ratio = importPerSec / run.floor;
      row(
        'import',
        `import ${format} unthrottled: records/s (ratio to the floors around it)`,
        `${num(importPerSec)} rec/s (${pct(ratio)} of ${num(run.floor)})${run.busy}`,
        '>= 40% of floor',
        ratio >= 0.4,
      );
      const arrivals = verifyArrivals(run.stats, main);
      row(
        'import',
        `import ${format}: every record arrives once`,
        arrivals.text,
        'stored = generated, 0 already-exists, 0 rejected',
        arrivals.ok && run.summary.status === 'completed',
      );
      const full = fullRequests(run.stats);
      const ofCeiling = ceiling ? ` (${pct(importPerSec / ceiling.perSec)} of sandbox ceiling)` : '';
      const toolCpu = cpuSeconds(run.rss).toFixed(1);
      const sandboxCpu = cpuSeconds(run.sandboxUsage).toFixed(1);
      const wall = (run.ms / 1000).toFixed(1);
      row(
        'import',
        `import ${format}: full requests; CPU s tool/sandbox/wall`,
        `${pct(full.ratio, 2)}; ${toolCpu} / ${sandboxCpu} / ${wall}${ofCeiling}`,
        '-',
        null,
      );
      run.perSec = importPerSec;
      run.ratio = ratio;
      delete run.samples;
    }
  }
  return { floors, validates, imports };
}
