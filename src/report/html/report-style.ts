/** The page's only style: system fonts (no font file), colours that print, tables that break across pages. */
export const REPORT_CSS = `
:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: var(--fg);
  max-width: 1000px; margin: 24px auto; padding: 0 16px; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
.status { font-size: 18px; font-weight: 600; padding: 10px 14px; border-radius: 6px; border: 1px solid var(--line); }
.status.complete { border-color: var(--ok); color: var(--ok); }
.status.complete-with-rejects { border-color: var(--warn); color: var(--warn); }
.status.incomplete, .status.not-started { border-color: var(--bad); color: var(--bad); }
.figures { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 12px 0; }
.figures div { min-width: 120px; } .figures b { display: block; font-size: 18px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.sub td:first-child { padding-left: 22px; color: var(--muted); }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
svg.chart { width: 100%; height: auto; display: block; margin: 8px 0 16px; break-inside: avoid; }
.chart-title { font-size: 14px; font-weight: 600; fill: var(--fg); }
.tick, .legend, .marker-label { font-size: 11px; fill: var(--muted); } .axis { font-size: 11px; fill: var(--fg); }
.grid { stroke: #eaeef2; } .marker { stroke: var(--muted); stroke-dasharray: 2 3; }
details summary { cursor: pointer; color: var(--muted); }
@media print {
  body { margin: 0; max-width: none; font-size: 12px; }
  h2 { break-after: avoid; } tr, .chart { break-inside: avoid; }
  details::details-content { content-visibility: visible; display: block; }
}
`;
