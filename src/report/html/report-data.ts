import { readCheckpoint, type CheckpointData, type EntityTotals } from '../../checkpoint/store.js';
import { readRunLog } from '../../checkpoint/run-log-file.js';
import { runLogPathOf } from '../../checkpoint/state-files.js';
import { ENTITY_ORDER, type EntityName } from '../../entities/types.js';
import { readRejects, type RejectCode } from './report-rejects.js';
import { runsOf, SENDING_COMMANDS, type RunRecord } from './report-runs.js';

/** One entity's row of the overview; see docs/report.md for where each figure comes from. */
export interface EntityRow {
  /** Records in the export: read by the last run that read the entity to the end (or the count first taken). */
  inExport?: number;
  imported: number;
  alreadyPresent: number;
  /** Rejected and not in yet (open), records only. */
  rejected: number;
  /** Whole-file problems still open. */
  fileProblems: number;
  skipped: number;
  skippedBy: Record<string, number>;
  notYetSent?: number;
  requests: number;
  retries: number;
}

export interface FileRow {
  entity: EntityName;
  file: string;
  acknowledged: number;
  open: number;
  complete: boolean;
}

export interface ReportData {
  generatedAt: number;
  checkpointPath: string;
  runLogPath: string;
  rejectsPath?: string;
  checkpoint?: CheckpointData;
  runs: RunRecord[];
  /** complete, complete-with-rejects, incomplete, not-started. */
  state: 'complete' | 'complete-with-rejects' | 'incomplete' | 'not-started';
  statusLine: string;
  entities: Partial<Record<EntityName, EntityRow>>;
  total: EntityRow;
  interruptions: number;
  /** First run's start to last run's end. */
  wallMs: number;
  /** Summed durations of the sending runs' phases. */
  sendingMs: number;
  rejects: RejectCode[];
  files: FileRow[];
  unreadableLines: number;
}

export interface ReportSources {
  checkpoint: string;
  rejects?: string;
  now?: number;
}

/** Reads the run log, the checkpoint and the rejects file of one migration into the report's figures. */
export async function loadReportData(sources: ReportSources): Promise<ReportData> {
  const runLogPath = runLogPathOf(sources.checkpoint);
  const [log, checkpoint] = await Promise.all([readRunLog(runLogPath), readCheckpoint(sources.checkpoint)]);
  const runs = runsOf(log.lines);
  const rejectsPath = sources.rejects ?? checkpoint?.rejects?.path;
  const rejects = await readRejects(rejectsPath, checkpoint);
  const sending = runs.filter((r) => SENDING_COMMANDS.has(r.command));
  // A run with --fresh started the migration over: the runs before it are another migration's figures.
  const current = sending.slice(
    Math.max(
      0,
      sending.findLastIndex((r) => r.start.fresh === true),
    ),
  );
  const entities = entityRows(current, checkpoint);
  const total = sumRows(Object.values(entities));
  const { state, statusLine } = statusOf(current, total, checkpoint);
  const interruptions = runs.filter((r) => r.interrupted !== undefined || !r.ended).length;
  const wallMs = runs.length === 0 ? 0 : Math.max(...runs.map((r) => r.endedAt)) - runs[0].startedAt;
  let sendingMs = 0;
  for (const run of sending) for (const p of run.phases) sendingMs += (p.endedAt ?? run.endedAt) - p.startedAt;
  return {
    generatedAt: sources.now ?? Date.now(),
    checkpointPath: sources.checkpoint,
    runLogPath,
    rejectsPath,
    checkpoint,
    runs,
    state,
    statusLine,
    entities,
    total,
    interruptions,
    wallMs,
    sendingMs,
    rejects,
    files: filesOf(checkpoint),
    unreadableLines: log.unreadable,
  };
}

const emptyRow = (): EntityRow => ({
  imported: 0,
  alreadyPresent: 0,
  rejected: 0,
  fileProblems: 0,
  skipped: 0,
  skippedBy: {},
  requests: 0,
  retries: 0,
});

/**
 * Per entity: what the sending runs' --json summaries say, added up over runs (imported, already
 * there, skipped, requests, retries); what is still rejected from the checkpoint's open rejects (the
 * last run's figure when there is no checkpoint); the export's size from the last complete reading.
 * The checkpoint's totals are the same counters kept across runs: where they are larger (a run
 * killed before its summary, runs before the run log existed), they win.
 */
function entityRows(runs: RunRecord[], checkpoint?: CheckpointData): Partial<Record<EntityName, EntityRow>> {
  const rows: Partial<Record<EntityName, EntityRow>> = {};
  for (const run of runs) {
    for (const [name, c] of Object.entries(run.summary?.entities ?? {}) as Array<[EntityName, never]>) {
      const counts = c as import('../../pipeline/events.js').EntityCounts;
      const row = (rows[name] ??= emptyRow());
      row.imported += counts.imported;
      row.alreadyPresent += counts.alreadyPresent;
      row.skipped += counts.skipped;
      row.requests += counts.requests;
      row.retries += counts.retries;
      for (const [reason, n] of Object.entries(counts.skippedBy))
        row.skippedBy[reason] = (row.skippedBy[reason] ?? 0) + n;
      // The last run's figure, unless the checkpoint says (below).
      row.rejected = counts.rejected;
      row.fileProblems = counts.fileProblems;
    }
    for (const phase of run.phases) {
      const row = (rows[phase.entity] ??= emptyRow());
      if (phase.completed && phase.counts) row.inExport = phase.counts.read;
      else if (row.inExport === undefined && phase.expected !== undefined) row.inExport = phase.expected;
    }
  }
  if (checkpoint) {
    for (const row of Object.values(rows)) {
      row.rejected = 0;
      row.fileProblems = 0;
    }
    for (const [name, totals] of Object.entries(checkpoint.totals) as Array<[EntityName, EntityTotals]>) {
      const row = (rows[name] ??= emptyRow());
      if (totals.imported + totals.alreadyPresent + totals.skipped <= row.imported + row.alreadyPresent + row.skipped)
        continue;
      row.imported = totals.imported;
      row.alreadyPresent = totals.alreadyPresent;
      row.skipped = totals.skipped;
      row.skippedBy = { ...(totals.skippedBy ?? {}) };
    }
    for (const f of Object.values(checkpoint.files)) {
      const row = (rows[f.entity] ??= emptyRow());
      for (const ordinal of Object.keys(f.open ?? {})) {
        if (Number(ordinal) < 0) row.fileProblems++;
        else row.rejected++;
      }
    }
  }
  for (const row of Object.values(rows)) {
    if (row.inExport === undefined) continue;
    row.notYetSent = Math.max(0, row.inExport - row.imported - row.alreadyPresent - row.rejected - row.skipped);
  }
  const ordered: Partial<Record<EntityName, EntityRow>> = {};
  for (const name of ENTITY_ORDER) if (rows[name]) ordered[name] = rows[name];
  return ordered;
}

function sumRows(rows: EntityRow[]): EntityRow {
  const total = emptyRow();
  let known = rows.length > 0;
  let inExport = 0;
  let notYetSent = 0;
  for (const row of rows) {
    for (const key of [
      'imported',
      'alreadyPresent',
      'rejected',
      'fileProblems',
      'skipped',
      'requests',
      'retries',
    ] as const)
      total[key] += row[key];
    for (const [reason, n] of Object.entries(row.skippedBy))
      total.skippedBy[reason] = (total.skippedBy[reason] ?? 0) + n;
    if (row.inExport === undefined) known = false;
    inExport += row.inExport ?? 0;
    notYetSent += row.notYetSent ?? 0;
  }
  if (known) Object.assign(total, { inExport, notYetSent });
  return total;
}

function statusOf(
  runs: RunRecord[],
  total: EntityRow,
  checkpoint?: CheckpointData,
): Pick<ReportData, 'state' | 'statusLine'> {
  const last = runs.at(-1);
  const open = total.rejected + total.fileProblems;
  if (!last) {
    if (!checkpoint || Object.keys(checkpoint.files).length === 0)
      return { state: 'not-started', statusLine: 'Not started: no import has run yet.' };
    // Runs of a version before the run log: the checkpoint alone says whether every file was read.
    const done = Object.values(checkpoint.files).every((f) => f.complete);
    if (!done) return { state: 'incomplete', statusLine: 'Incomplete: some files are not read to the end yet.' };
  }
  const finished = !last || last.status === 'completed' || last.status === 'completed-with-rejects';
  if (!finished) {
    const left = total.notYetSent ? `, ${total.notYetSent.toLocaleString('en-US')} records not yet sent` : '';
    return { state: 'incomplete', statusLine: `Incomplete: the last import ${last!.status}${left}.` };
  }
  if (open === 0) return { state: 'complete', statusLine: 'Complete: every record of the export is in.' };
  const n = open.toLocaleString('en-US');
  return {
    state: 'complete-with-rejects',
    statusLine: `Complete with ${n} open ${open === 1 ? 'reject' : 'rejects'}.`,
  };
}

function filesOf(checkpoint?: CheckpointData): FileRow[] {
  if (!checkpoint) return [];
  return Object.values(checkpoint.files).map((f) => ({
    entity: f.entity,
    file: f.file,
    acknowledged: f.acked.reduce((n, [s, e]) => n + (e - s), f.watermark),
    open: Object.keys(f.open ?? {}).length,
    complete: Boolean(f.complete),
  }));
}
