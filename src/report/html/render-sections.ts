import { escapeHtml as e } from './escape.js';
import type { ReportData } from './report-data.js';
import type { RunLogLine } from '../../checkpoint/run-log-file.js';
import type { BlockedMark } from '../../checkpoint/checkpoint-data.js';
import { blockedParentLine } from '../../rules/index.js';

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US') : '–');
/** Files shown before the table is folded into a <details>. */
const OPEN_FILES = 12;

/** The last line of a type over all runs: the newest validate or verify result. */
export function lastEvent(data: ReportData, type: string): RunLogLine | undefined {
  let found: RunLogLine | undefined;
  for (const run of data.runs) {
    const line = run.events[type];
    if (line && (!found || line.t >= found.t)) found = line;
  }
  return found;
}

/** Verify's figures per entity, in the order the table shows them. */
const VERIFY_COLUMNS = ['expected', 'present', 'missing', 'different', 'extra', 'beyondRetention'] as const;

export function renderResults(data: ReportData): string {
  const parts: string[] = [];
  const validate = lastEvent(data, 'validate-end');
  if (validate) {
    const byEntity = (validate.byEntity ?? {}) as Record<string, Record<string, number>>;
    const rows = Object.entries(byEntity).map(
      ([entity, c]) =>
        `<tr><td>${e(entity)}</td><td class="n" data-figure="validate.${e(entity)}.records">${n(c.records)}</td>` +
        `<td class="n">${n(c.errors)}</td><td class="n">${n(c.warnings)}</td><td class="n">${n(c.skipped)}</td></tr>`,
    );
    parts.push(
      `<h3>validate</h3><p>${n(validate.recordsRead)} records read, ` +
        `<b data-figure="validate.errors">${n(validate.errorCount)}</b> errors, ${n(validate.warningCount)} warnings` +
        `${validate.stoppedEarly ? ' (stopped early at --max-errors)' : ''}.</p>` +
        `<table><tr><th>entity</th><th class="n">records</th><th class="n">errors</th><th class="n">warnings</th>` +
        `<th class="n">skipped</th></tr>${rows.join('')}</table>`,
    );
  }
  const verify = lastEvent(data, 'verify-end');
  if (verify) {
    const entities = (verify.entities ?? {}) as Record<string, Record<string, number>>;
    const head = VERIFY_COLUMNS.map((c) => `<th class="n">${e(c === 'beyondRetention' ? 'beyond retention' : c)}</th>`);
    const rows = Object.entries(entities).map(
      ([entity, c]) =>
        `<tr><td>${e(entity)}</td>${VERIFY_COLUMNS.map(
          (k) => `<td class="n" data-figure="verify.${e(entity)}.${k}">${n(c[k])}</td>`,
        ).join('')}</tr>`,
    );
    parts.push(
      '<h3>verify</h3>' +
        `<p class="muted">What the service holds, read back on ${e(new Date(verify.t).toISOString())}.</p>` +
        `<table class="verify"><tr><th>entity</th>${head.join('')}</tr>${rows.join('')}</table>` +
        notComparedWords(verify.notShown as Record<string, string[]> | undefined),
    );
  }
  if (parts.length === 0) return '';
  return `<h2>Validate and verify</h2>${parts.join('')}`;
}

/** The fields verify could not compare, as the service's reads do not carry them: said, never counted. */
function notComparedWords(notShown: Record<string, string[]> | undefined): string {
  const listed = Object.entries(notShown ?? {}).map(([entity, fields]) => `${entity}: ${fields.join(', ')}`);
  if (listed.length === 0) return '';
  return (
    `<p class="muted" data-figure="verify.notShown">Not compared, as no record the service's reads listed ` +
    `carries them (a difference there cannot be seen, so none is counted or repaired): ${e(listed.join('; '))}.</p>`
  );
}

/** What the report says of rejects once the migration was undone: they were the undone migration's. */
export const undoneWords = (setAside: string[]): string =>
  `The migration was undone: its checkpoint, id log and rejects file were set aside (${setAside.join(', ')}).`;

export function renderRejects(data: ReportData): string {
  const undone = data.state === 'undone' ? data.ledger.undone : undefined;
  if (undone) return `<h2>Rejects</h2><p>${e(undoneWords(undone.setAside))}</p>`;
  if (data.rejects.length === 0) return '<h2>Rejects</h2><p>No record was rejected.</p>';
  const rows = data.rejects.map((r) => {
    const examples = r.examples
      .map((x) => `<li><code>${e(`${x.file}:${x.line}`)}</code> ${e(x.message)}</li>`)
      .join('');
    return (
      `<tr data-code="${e(r.code)}"><td><code>${e(r.code)}</code></td>` +
      `<td class="n" data-figure="rejects.${e(r.code)}.open">${n(r.open)}</td>` +
      `<td class="n">${n(r.resolved)}</td>` +
      `<td class="n" data-figure="rejects.${e(r.code)}.dropped">${n(r.dropped)}</td>` +
      `<td>${e(r.meaning)}<br><i>${e(r.action)}</i>` +
      `${examples ? `<ul>${examples}</ul>` : ''}</td></tr>`
    );
  });
  const where = data.rejectsPath ? ` Every rejected record is in <code>${e(data.rejectsPath)}</code>.` : '';
  return (
    `<h2>Rejects</h2><p class="muted">Open: rejected and not in yet. Resolved: rejected once, in since ` +
    `(or no longer sent). Given up: its line was deleted from the rejects file before a replay.${where}</p>` +
    `<table><tr><th>code</th><th class="n">open</th><th class="n">resolved</th><th class="n">given up</th>` +
    `<th>what it means, what to do, first examples</th></tr>${rows.join('')}</table>`
  );
}

export function renderFiles(data: ReportData): string {
  if (data.files.length === 0) return '';
  const rows = data.files.map(
    (f) =>
      `<tr><td>${e(f.entity)}</td><td><code>${e(f.file)}</code></td><td class="n">${n(f.acknowledged)}</td>` +
      `<td class="n">${n(f.open)}</td><td>${f.complete ? 'yes' : 'no'}</td></tr>`,
  );
  const table =
    `<table><tr><th>entity</th><th>file</th><th class="n">records done</th><th class="n">rejected (open)</th>` +
    `<th>read to the end</th></tr>${rows.join('')}</table>`;
  const title = '<h2>Files</h2>';
  if (data.files.length <= OPEN_FILES) return `${title}${table}`;
  return `${title}<details><summary>${n(data.files.length)} files (click to show)</summary>${table}</details>`;
}

/** Attachments the media pass could not carry, by reason, with the first examples: their messages wait. */
export function renderMedia(data: ReportData): string {
  const { media } = data.ledger;
  if (media.notCarried === 0) return '';
  const reasons = Object.entries(media.byReason)
    .map(([reason, count]) => `<tr><td>${e(reason)}</td><td class="n">${n(count)}</td></tr>`)
    .join('');
  const examples = media.examples
    .map((x) => `<li><code>${e(`${x.file}:${x.line}`)}</code> ${e(x.url)}: ${e(x.reason)}</li>`)
    .join('');
  return (
    `<h2>Attachments not carried</h2><p data-figure="media.notCarried">${n(media.notCarried)} attachment(s) ` +
    'could not be carried; their messages are held back until a run carries them (see docs/media.md).</p>' +
    `<table><tr><th>reason</th><th class="n">files</th></tr>${reasons}</table><ul>${examples}</ul>`
  );
}

/** The parents shown by name; the rest are counted (status --json lists all). */
export const PARENTS_SHOWN = 20;

/** Users and groups not in that hold members or messages back, one line each, the ones holding most first. */
export function renderBlocked(data: ReportData): string {
  const parents = data.ledger.blockedParents;
  if (parents.length === 0) return '';
  const items = parents
    .slice(0, PARENTS_SHOWN)
    .map(
      (p) => `<li data-blocked="${e(p.key)}"><code>${e(`${p.file}:${p.line}`)}</code> ${e(blockedSentence(p))}</li>`,
    );
  if (parents.length > PARENTS_SHOWN) items.push(`<li>… and ${n(parents.length - PARENTS_SHOWN)} more</li>`);
  return (
    `<h2>Blocked</h2><p data-figure="blocked">${n(data.total.blocked)} record(s) are held back because their ` +
    'user or group is not in; they are sent by the run that brings it in (fix it in the export and import, ' +
    `or in the rejects file and replay).</p><ul>${items.join('')}</ul>`
  );
}

/** `user bob, rejected (user.name.too-long), holds back 1 member and 3 messages` */
export function blockedSentence(p: BlockedMark): string {
  return blockedParentLine(p).slice(`${p.file}:${p.line}: `.length);
}
