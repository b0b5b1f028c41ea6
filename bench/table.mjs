// Formatting for the bench's table.
export const num = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const pct = (ratio, digits = 1) => (Number.isFinite(ratio) ? `${(ratio * 100).toFixed(digits)}%` : 'n/a');
export const mb = (bytes) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MB` : 'n/a');

const verdict = (pass) => (pass === true ? 'pass' : pass === false ? 'FAIL' : '-');

/** A plain-text table (also valid Markdown): metric | measured | target | result. */
export function formatTable(rows) {
  const cells = [
    ['metric', 'measured', 'target', 'result'],
    ...rows.map((r) => [r.metric, r.measured, r.target, verdict(r.pass)]),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  return [line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join(
    '\n',
  );
}

/** A row of the table as the results files keep it. */
export const rowOf = (section, metric, measured, target, pass) => ({ section, metric, measured, target, pass });

/** A Markdown table cell: a pipe inside a measured value would end the cell early. */
export const cell = (text) => String(text).replace(/\|/g, '\\|');
