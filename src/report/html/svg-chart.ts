import { escapeHtml } from './escape.js';

export interface Point {
  x: number;
  y: number;
}

export interface Series {
  name: string;
  /** A CSS colour; print keeps it (the page asks for exact colours). */
  color: string;
  /** Pieces drawn apart (one per run): a line never joins two runs across the time between them. */
  segments: Point[][];
  dashed?: boolean;
  /** Stroke width (2 unless set) and opacity: a wide pale line stays visible under a thin one. */
  width?: number;
  opacity?: number;
}

export interface ChartSpec {
  title: string;
  /** Axis words: `requests / min`, `% done`. */
  yLabel: string;
  xLabel: string;
  series: Series[];
  /** Vertical markers: where a run starts. */
  markers?: Array<{ x: number; label: string }>;
  /** The x axis' span and tick positions, when charts share one; else from the data, in 6 even steps. */
  x?: { min: number; max: number; ticks: number[] };
  /** Fixed top of the y axis (100 for percentages); else from the data. */
  yMax?: number;
  formatX: (x: number) => string;
}

const W = 760;
const H = 250;
const PAD = { left: 56, right: 16, top: 28, bottom: 66 };

/** 1, 2, 2.5 or 5 times a power of ten: the step of at most `count` ticks covering `max`. */
export function niceStep(max: number, count = 5): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * A line chart as an SVG string: axes with round ticks, one polyline per series segment (each
 * carrying `data-points`, how many points it drew), markers, a legend. Our own code: a few lines of
 * geometry, no library to inline into every report (docs/design-notes.md).
 */
export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.segments.flat());
  const xs = all.map((p) => p.x).concat((spec.markers ?? []).map((m) => m.x));
  const xMin = spec.x?.min ?? (xs.length > 0 ? Math.min(...xs) : 0);
  const xMax = spec.x ? Math.max(spec.x.max, xMin + 1) : xs.length > 0 ? Math.max(...xs, xMin + 1) : 1;
  const dataMax = all.length > 0 ? Math.max(...all.map((p) => p.y)) : 0;
  const yStep = niceStep(spec.yMax ?? Math.max(dataMax, 1));
  const yMax = spec.yMax ?? Math.max(yStep, Math.ceil(dataMax / yStep) * yStep);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const sx = (x: number) => round(PAD.left + ((x - xMin) / (xMax - xMin)) * plotW);
  const sy = (y: number) => round(PAD.top + plotH - (Math.min(y, yMax) / yMax) * plotH);
  const parts: string[] = [];
  parts.push(`<text x="${PAD.left}" y="18" class="chart-title">${escapeHtml(spec.title)}</text>`);
  for (let y = 0; y <= yMax + yStep / 1000; y += yStep) {
    parts.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${sy(y)}" y2="${sy(y)}" class="grid"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${sy(y) + 4}" text-anchor="end" class="tick">${fmt(y)}</text>`);
  }
  const xTicks = spec.x?.ticks ?? Array.from({ length: 7 }, (_, i) => xMin + ((xMax - xMin) * i) / 6);
  for (const x of xTicks) {
    const label = escapeHtml(spec.formatX(x));
    parts.push(`<text x="${sx(x)}" y="${H - PAD.bottom + 16}" text-anchor="middle" class="tick">${label}</text>`);
  }
  parts.push(
    `<text x="${PAD.left + plotW / 2}" y="${H - PAD.bottom + 34}" text-anchor="middle" class="axis">` +
      `${escapeHtml(spec.xLabel)}</text>`,
    `<text x="14" y="${PAD.top + plotH / 2}" text-anchor="middle" class="axis" ` +
      `transform="rotate(-90 14 ${PAD.top + plotH / 2})">${escapeHtml(spec.yLabel)}</text>`,
  );
  // A label that would run into one before it goes a line lower (a short run's marker sits close to
  // the next one's), and one that would pass the right edge ends at its marker instead of starting
  // there. 6.5 px a character is the 11 px font's width, with room to spare.
  const rowEnds: number[] = [];
  for (const m of spec.markers ?? []) {
    const width = m.label.length * 6.5;
    const atEnd = sx(m.x) + 3 + width > W;
    const start = atEnd ? sx(m.x) - 3 - width : sx(m.x) + 3;
    let row = rowEnds.findIndex((end) => end <= start);
    if (row < 0) row = rowEnds.length;
    rowEnds[row] = start + width + 6;
    const text = atEnd ? `x="${sx(m.x) - 3}" text-anchor="end"` : `x="${start}"`;
    parts.push(`<line x1="${sx(m.x)}" x2="${sx(m.x)}" y1="${PAD.top}" y2="${PAD.top + plotH}" class="marker"/>`);
    parts.push(`<text ${text} y="${PAD.top + 10 + row * 14}" class="marker-label">${escapeHtml(m.label)}</text>`);
  }
  for (const s of spec.series) {
    for (const segment of s.segments) {
      if (segment.length === 0) continue;
      const pts = segment.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ');
      const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
      const opacity = s.opacity === undefined ? '' : ` stroke-opacity="${s.opacity}"`;
      const name = escapeHtml(s.name);
      parts.push(
        `<polyline class="series" data-series="${name}" data-points="${segment.length}" points="${pts}" ` +
          `fill="none" stroke="${s.color}" stroke-width="${s.width ?? 2}"${dash}${opacity}/>`,
      );
      // A lone point draws no line: a dot shows it.
      if (segment.length === 1)
        parts.push(`<circle cx="${sx(segment[0].x)}" cy="${sy(segment[0].y)}" r="3" fill="${s.color}"/>`);
    }
  }
  let lx = PAD.left;
  for (const s of spec.series) {
    const y = H - 4;
    const opacity = s.opacity === undefined ? '' : ` fill-opacity="${s.opacity}"`;
    parts.push(`<rect x="${lx}" y="${y - 9}" width="14" height="${s.width ?? 4}" fill="${s.color}"${opacity}/>`);
    parts.push(`<text x="${lx + 18}" y="${y - 4}" class="legend">${escapeHtml(s.name)}</text>`);
    lx += 30 + s.name.length * 7;
  }
  const label = escapeHtml(spec.title);
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label}">${parts.join('')}</svg>`;
}

function fmt(n: number): string {
  if (n >= 1e6) return `${round(n / 1e6)}M`;
  if (n >= 1e4) return `${round(n / 1e3)}k`;
  return String(round(n));
}
