import type { ReportData } from './report-data.js';
import { CHARTED_COMMANDS, type RunRecord, type SampleLine } from './report-runs.js';
import { lineChart, type Point, type Series } from './svg-chart.js';

/**
 * The window a rate limit counts over: a point's requests (or records) a minute are those of the minute
 * up to it. Over a shorter stretch an evenly paced run looks faster than it is (two requests 1.1 s
 * apart read as 109 a minute against a limit of 60: the fence-post request), which reads as a broken
 * limit. In a run's first minute a point is the count since the run began: all it sent in that minute.
 */
const WINDOW_MS = 60_000;

/** At most this many points per chart line: a 6-hour run's 10,000+ samples draw as well as a short one's. */
export const MAX_POINTS = 400;

/**
 * Keeps at most `max` samples, evenly over time: the last sample of each time bucket. The counters
 * are cumulative, so rates between kept samples stay exact averages; the latency kept is the
 * bucket's highest p95 and its median p50's last.
 */
export function downsample(samples: SampleLine[], max = MAX_POINTS): SampleLine[] {
  if (samples.length <= max) return samples;
  const first = samples[0].t;
  const span = samples[samples.length - 1].t - first || 1;
  const out: SampleLine[] = [];
  let bucket = -1;
  let p95 = 0;
  for (const s of samples) {
    const b = Math.min(max - 1, Math.floor(((s.t - first) / span) * max));
    if (b !== bucket) {
      bucket = b;
      p95 = 0;
      out.push(s);
    }
    p95 = Math.max(p95, s.p95 ?? 0);
    out[out.length - 1] = { ...s, p95: p95 || s.p95 };
  }
  return out;
}

const COLORS = { requests: '#1f6feb', limit: '#cf222e', rate: '#bf8700', records: '#1a7f37', retries: '#8250df' };
const PHASE_COLORS: Record<string, string> = {
  users: '#1f6feb',
  groups: '#1a7f37',
  members: '#bf8700',
  messages: '#8250df',
};

/** Runs on one axis of running time: each run starts where the one before ended, plus a small gap. */
function timeline(runs: RunRecord[]): Array<{ run: RunRecord; offset: number }> {
  let at = 0;
  return runs.map((run) => {
    const placed = { run, offset: at - run.startedAt };
    at += run.endedAt - run.startedAt + 1000;
    return placed;
  });
}

/** A tick's words for a time from the first run's start: seconds for a short run, h:mm for a long one. */
export function elapsedLabel(ms: number, spanMs: number): string {
  const s = Math.round(ms / 1000);
  if (spanMs < 120_000) return `${s}s`;
  const m = Math.floor(s / 60);
  if (spanMs < 7_200_000) return `${m}m${String(s % 60).padStart(2, '0')}`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}`;
}

/** Round steps of a time axis (ms): seconds, minutes, hours, days. */
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map(
  (s) => s * 1000,
);

/** Ticks from 0 at a round step, at most 8 of them over `spanMs` (offsets from the axis' start). */
export function timeTicks(spanMs: number, most = 8): number[] {
  const step =
    TIME_STEPS.find((s) => spanMs / s <= most - 1) ?? Math.ceil(spanMs / (most - 1) / 86_400_000) * 86_400_000;
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs; t += step) ticks.push(t);
  return ticks;
}

/** The charts of the sending runs, as SVG strings; none when no sending run has samples. */
export function renderCharts(data: ReportData): string[] {
  const runs = data.runs.filter((r) => CHARTED_COMMANDS.has(r.command));
  if (runs.every((r) => r.samples.length === 0)) return [];
  const placed = timeline(runs);
  const perRun = placed.map(({ run, offset }) => ({ run, offset, samples: downsample(run.samples) }));
  // Numbered as the runs table numbers them: every run of the log counts, charted or not.
  const numberOf = new Map(data.runs.map((run, i) => [run, i + 1]));
  const markers = placed.map(({ run, offset }) => ({
    x: run.startedAt + offset,
    label: `run ${numberOf.get(run)}${run.resumed ? ' (resumed)' : ''}${run.interrupted ? `, ${run.interrupted}` : ''}`,
  }));
  /** Per run: a point per kept sample of a figure the sample holds (the limiter's rate, latency). */
  const segments = (value: (s: SampleLine) => number | undefined): Point[][] =>
    perRun.map(({ offset, samples }) => {
      const points: Point[] = [];
      for (const s of samples) {
        const y = value(s);
        if (y !== undefined && Number.isFinite(y)) points.push({ x: s.t + offset, y: Math.round(y * 10) / 10 });
      }
      return points;
    });
  const perMinute = (key: 'records' | 'requests' | 'retries' | 'rateLimited'): Point[][] =>
    perRun.map(({ run, offset, samples }) => {
      const points: Point[] = [];
      const start: SampleLine = { t: run.startedAt, records: 0, requests: 0, retries: 0, rateLimited: 0 };
      let from = 0;
      for (let i = 0; i < samples.length; i++) {
        const s = samples[i];
        // The latest sample a minute or more before this one (or the run's start): the window's base.
        while (from < i && samples[from].t <= s.t - WINDOW_MS) from++;
        const base = from > 0 ? samples[from - 1] : start;
        const ms = s.t - base.t;
        const count = s[key] - base[key];
        const y = ms >= WINDOW_MS ? (count / ms) * WINDOW_MS : count;
        points.push({ x: s.t + offset, y: Math.round(y * 10) / 10 });
      }
      return points;
    });
  const limits: Series[] = [];
  const configured = perRun.map(({ run, offset }) => {
    const rpm = (run.start.settings as { requestsPerMinute?: unknown } | undefined)?.requestsPerMinute;
    return typeof rpm === 'number'
      ? [
          { x: run.startedAt + offset, y: rpm },
          { x: run.endedAt + offset, y: rpm },
        ]
      : [];
  });
  if (configured.some((s) => s.length > 0))
    limits.push({ name: 'rate limit (configured)', color: COLORS.limit, segments: configured, dashed: true });
  limits.push({ name: "limiter's rate", color: COLORS.rate, segments: segments((s) => s.rate), dashed: true });
  const origin = placed[0].run.startedAt + placed[0].offset;
  const last = placed[placed.length - 1];
  let end = last.run.endedAt + last.offset;
  for (const { offset, samples } of perRun) for (const s of samples) end = Math.max(end, s.t + offset);
  const span = end - origin;
  const formatX = (x: number) => elapsedLabel(x - origin, span);
  const xLabel = 'running time (runs placed end to end)';
  // One time axis for every chart: the same span and the same round ticks, so charts line up.
  const x = { min: origin, max: end, ticks: timeTicks(span).map((t) => origin + t) };
  const charts = [
    lineChart({
      title: 'Requests per minute against the rate limit',
      yLabel: 'requests / min',
      xLabel,
      x,
      formatX,
      markers,
      series: [{ name: 'requests / min', color: COLORS.requests, segments: perMinute('requests') }, ...limits],
    }),
    lineChart({
      title: 'Records per minute',
      yLabel: 'records / min',
      xLabel,
      x,
      formatX,
      markers,
      series: [{ name: 'records / min', color: COLORS.records, segments: perMinute('records') }],
    }),
    lineChart({
      title: '429 answers and retries over time',
      yLabel: 'per minute',
      xLabel,
      x,
      formatX,
      markers,
      series: [
        { name: '429s / min', color: COLORS.limit, segments: perMinute('rateLimited') },
        { name: 'retries / min', color: COLORS.retries, segments: perMinute('retries') },
      ],
    }),
    lineChart({
      title: "Each phase's progress",
      yLabel: '% of the phase done',
      xLabel,
      x,
      formatX,
      markers,
      yMax: 100,
      series: phaseSeries(perRun),
    }),
    lineChart({
      title: 'Request latency',
      yLabel: 'ms',
      xLabel,
      x,
      formatX,
      markers,
      series: [
        // p95 under p50 as a wide pale band: where they are equal (few requests, even latency) both show.
        { name: 'p95', color: COLORS.limit, segments: segments((s) => s.p95), width: 7, opacity: 0.35 },
        { name: 'p50', color: COLORS.requests, segments: segments((s) => s.p50) },
      ],
    }),
  ];
  return charts;
}

/** Per entity, a line per run: 0% at the phase's start, each sample's share done, 100% at a completed end. */
function phaseSeries(perRun: Array<{ run: RunRecord; offset: number; samples: SampleLine[] }>): Series[] {
  const byEntity = new Map<string, Point[][]>();
  for (const { run, offset, samples } of perRun) {
    for (const phase of run.phases) {
      // A phase read to the end knows its size; before, the count taken at its start (lines, roughly).
      const expected = (phase.completed && phase.counts?.read) || phase.expected || phase.counts?.read;
      if (!expected) continue;
      const end = phase.endedAt ?? run.endedAt;
      const points: Point[] = [{ x: phase.startedAt + offset, y: 0 }];
      for (const s of samples) {
        if (s.phase !== phase.entity || s.t < phase.startedAt || s.t > end || s.phaseDone === undefined) continue;
        points.push({ x: s.t + offset, y: Math.min(100, Math.round((s.phaseDone / expected) * 1000) / 10) });
      }
      if (phase.counts) {
        const c = phase.counts;
        const done = c.imported + c.alreadyPresent + c.rejected + c.skipped + c.resumed;
        points.push({ x: end + offset, y: phase.completed ? 100 : Math.min(100, (done / expected) * 100) });
      }
      const list = byEntity.get(phase.entity) ?? [];
      list.push(points);
      byEntity.set(phase.entity, list);
    }
  }
  return [...byEntity].map(([entity, segments]) => ({
    name: entity,
    color: PHASE_COLORS[entity] ?? '#57606a',
    segments,
  }));
}
