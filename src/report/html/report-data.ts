import { readCheckpoint, type CheckpointData } from '../../checkpoint/store.js';
import { ledgerView, type LedgerRow, type LedgerState, type LedgerView } from '../../checkpoint/ledger.js';
import { readRunLog } from '../../checkpoint/run-log-file.js';
import { runLogPathOf } from '../../checkpoint/state-files.js';
import type { EntityName } from '../../entities/types.js';
import { readRejects, type RejectCode } from './report-rejects.js';
import { runsOf, type RunRecord } from './report-runs.js';
import { syncRoundsOf, type SyncRound } from './report-sync.js';

/**
 * The overview's rows, for the HTML and the Markdown alike; `optional` ones show only when some
 * entity has one.
 */
export const OVERVIEW_ROWS: ReadonlyArray<{ label: string; key: keyof LedgerRow; optional?: boolean }> = [
  { label: 'in the export', key: 'inExport' },
  { label: 'imported', key: 'imported' },
  { label: 'already there', key: 'alreadyPresent' },
  { label: 'rejected (open)', key: 'open' },
  { label: 'blocked (their user or group is not in)', key: 'blocked', optional: true },
  { label: 'file problems (open)', key: 'fileProblems', optional: true },
  { label: 'given up (dropped from the rejects file)', key: 'dropped', optional: true },
  { label: 'in by replay', key: 'replayed', optional: true },
  { label: 'repaired by verify --repair', key: 'repaired', optional: true },
  { label: 'in without their missing files', key: 'withoutFiles', optional: true },
  { label: 'skipped', key: 'skipped' },
  { label: 'not yet sent', key: 'notYetSent' },
];

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
  /** The rounds of `sync` and `sync --final`, from the run log: the cutover timeline. */
  syncRounds: SyncRound[];
  /** Every figure of the migration, from its ledger. */
  ledger: LedgerView;
  state: LedgerState;
  statusLine: string;
  entities: Partial<Record<EntityName, LedgerRow>>;
  total: LedgerRow;
  interruptions: number;
  /** First run's start to last run's end. */
  wallMs: number;
  /** Time spent sending, summed over every command that sent (the ledger's traffic). */
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

/**
 * Reads the run log (the runs, their samples, validate and verify results), the ledger (every count)
 * and the rejects file (examples by code) of one migration into the report's figures.
 */
export async function loadReportData(sources: ReportSources): Promise<ReportData> {
  const runLogPath = runLogPathOf(sources.checkpoint);
  const [log, checkpoint] = await Promise.all([readRunLog(runLogPath), readCheckpoint(sources.checkpoint)]);
  const runs = runsOf(log.lines);
  const ledger = ledgerView(checkpoint);
  const rejectsPath = sources.rejects ?? checkpoint?.rejects?.path;
  // After an undo the rejects file was set aside with the rest: it is the undone migration's.
  const rejects = ledger.state === 'undone' ? [] : await readRejects(rejectsPath, checkpoint, ledger.droppedByCode);
  const interruptions = runs.filter((r) => r.interrupted !== undefined || !r.ended).length;
  const wallMs = runs.length === 0 ? 0 : Math.max(...runs.map((r) => r.endedAt)) - runs[0].startedAt;
  return {
    generatedAt: sources.now ?? Date.now(),
    checkpointPath: sources.checkpoint,
    runLogPath,
    rejectsPath,
    checkpoint,
    runs,
    syncRounds: syncRoundsOf(log.lines),
    ledger,
    state: ledger.state,
    statusLine: ledger.statusLine,
    entities: ledger.entities,
    total: ledger.total,
    interruptions,
    wallMs,
    sendingMs: ledger.traffic.sendingMs,
    rejects,
    files: filesOf(checkpoint),
    unreadableLines: log.unreadable,
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
