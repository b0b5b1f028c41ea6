/**
 * The ledger: what one migration did to every record, kept in the checkpoint file (written atomically
 * with the acknowledgements it counts, so a SIGKILL never leaves the two apart). Every count a person
 * or a CI job sees (`status`, `report`, the summaries, `--json`) is derived here, from it alone.
 */
import { BEYOND_RETENTION, ENTITY_ORDER, MEDIA_NOT_CARRIED, type EntityName } from '../entities/types.js';
import type { BlockedMark, CheckpointData, EntityTotals } from './checkpoint-data.js';
import {
  emptyTraffic,
  type MediaHold,
  type Traffic,
  type UndoKept,
  type UndoMark,
  type VerifyMark,
} from './ledger-marks.js';

export type { MediaHold, Traffic, UndoMark, VerifyMark };

/** Commands whose requests are the migration's traffic (verify's reads are not sends). */
export const SENDING_COMMANDS: readonly string[] = [
  'import',
  'replay',
  'demo',
  'repair',
  'undo',
  'sync',
  'sync --final',
];

/** One entity as the ledger counts it. */
export interface LedgerRow {
  /** Records in the export, from the last reading of the entity to its end. */
  inExport?: number;
  imported: number;
  alreadyPresent: number;
  /** Rejected and not in yet. */
  open: number;
  /** Members or messages held back by a user or group not in (as the last reading to its end met them). */
  blocked: number;
  /** Problems of a whole file, still open. */
  fileProblems: number;
  /** Rejects given up (their line deleted from the rejects file before a replay). */
  dropped: number;
  /** Rejects that got in later. */
  resolved: number;
  /** Brought in by replay (edited in the rejects file), and by verify --repair. */
  replayed: number;
  repaired: number;
  /** Messages in without the files missing at their source (replay --without-missing-files). */
  withoutFiles: number;
  skipped: number;
  skippedBy: Record<string, number>;
  /** Read but neither answered nor accounted for yet: the next run sends them. */
  notYetSent?: number;
}

export type LedgerState = 'not-started' | 'incomplete' | 'open' | 'verify-failed' | 'complete' | 'undoing' | 'undone';

export interface LedgerView {
  exists: boolean;
  entities: Partial<Record<EntityName, LedgerRow>>;
  total: LedgerRow;
  /** Open rejects by code, and given-up ones by code. */
  openByCode: Record<string, number>;
  droppedByCode: Record<string, number>;
  /** The users and groups not in that hold records back, the ones holding most first. */
  blockedParents: Array<BlockedMark & { key: string }>;
  /** Summed over the commands that sent; `byCommand` has each. */
  traffic: Traffic & { byCommand: Record<string, Traffic> };
  media: { notCarried: number; byReason: Record<string, number>; examples: Array<MediaHold & { url: string }> };
  verified?: VerifyMark & { current: boolean };
  undone?: UndoMark;
  state: LedgerState;
  statusLine: string;
}

const EXAMPLES = 5;

const emptyRow = (): LedgerRow => ({
  imported: 0,
  alreadyPresent: 0,
  open: 0,
  blocked: 0,
  fileProblems: 0,
  dropped: 0,
  resolved: 0,
  replayed: 0,
  repaired: 0,
  withoutFiles: 0,
  skipped: 0,
  skippedBy: {},
});

const addTo = (into: Record<string, number>, key: string, n = 1) => {
  into[key] = (into[key] ?? 0) + n;
};

/** Every figure of the migration, from its checkpoint (undefined: none yet). */
export function ledgerView(data: CheckpointData | undefined): LedgerView {
  const entities: Partial<Record<EntityName, LedgerRow>> = {};
  const openByCode: Record<string, number> = {};
  const droppedByCode: Record<string, number> = {};
  for (const name of ENTITY_ORDER) {
    const t = data?.totals[name];
    const files = Object.values(data?.files ?? {}).filter((f) => f.entity === name);
    if (!t && files.length === 0) continue;
    const row = rowOf(t);
    for (const f of files) {
      for (const [ordinal, open] of Object.entries(f.open ?? {})) {
        if (Number(ordinal) < 0) row.fileProblems++;
        else row.open++;
        addTo(openByCode, open.code);
      }
    }
    for (const [code, n] of Object.entries(t?.droppedBy ?? {})) addTo(droppedByCode, code, n);
    if (row.inExport !== undefined) {
      const accounted = row.imported + row.alreadyPresent + row.open + row.blocked + row.dropped + row.skipped;
      row.notYetSent = Math.max(0, row.inExport - accounted);
    }
    entities[name] = row;
  }
  const total = sumRows(Object.values(entities) as LedgerRow[]);
  const view: LedgerView = {
    exists: data !== undefined,
    entities,
    total,
    openByCode,
    droppedByCode,
    blockedParents: blockedOf(data),
    traffic: trafficOf(data),
    media: mediaOf(data),
    verified: data?.verified && { ...data.verified, current: data.verified.at >= (data.changedAt ?? '') },
    undone: data?.undone,
    state: 'not-started',
    statusLine: '',
  };
  const status = statusOf(view, data);
  return { ...view, ...(data?.lastRun?.command === 'sync --final' ? cutoverStatus(view, status) : status) };
}

/**
 * After `sync --final` the status line answers the cutover's question: complete only when every record
 * is in and the final verify, made since the service last changed, found all of it there.
 */
function cutoverStatus(view: LedgerView, status: Pick<LedgerView, 'state' | 'statusLine'>): typeof status {
  const why = status.statusLine.replace(/^[A-Za-z ]+: /, '');
  if (status.state === 'complete' && view.verified?.current && view.verified.ok)
    return { state: 'complete', statusLine: `Cutover complete: ${why}` };
  if (status.state !== 'complete') return { state: status.state, statusLine: `Cutover not complete: ${why}` };
  const unproven = `${why.replace(/\.$/, '')} (no full verify since the last change found it all).`;
  return { state: 'incomplete', statusLine: `Cutover not complete: ${unproven}` };
}

function rowOf(t: EntityTotals | undefined): LedgerRow {
  const row = emptyRow();
  if (!t) return row;
  row.inExport = t.inExport;
  row.imported = t.imported;
  row.alreadyPresent = t.alreadyPresent;
  row.skipped = t.skipped;
  row.blocked = t.blocked ?? 0;
  row.skippedBy = { ...(t.skippedBy ?? {}) };
  row.dropped = t.dropped ?? 0;
  row.resolved = t.resolved ?? 0;
  row.replayed = t.replayed ?? 0;
  row.repaired = t.repaired ?? 0;
  row.withoutFiles = t.withoutFiles ?? 0;
  return row;
}

function sumRows(rows: LedgerRow[]): LedgerRow {
  const total = emptyRow();
  let inExport: number | undefined = rows.length > 0 ? 0 : undefined;
  for (const row of rows) {
    for (const key of [
      'imported',
      'alreadyPresent',
      'open',
      'blocked',
      'fileProblems',
      'dropped',
      'resolved',
      'replayed',
      'repaired',
      'withoutFiles',
      'skipped',
    ] as const)
      total[key] += row[key];
    for (const [reason, n] of Object.entries(row.skippedBy)) addTo(total.skippedBy, reason, n);
    inExport = row.inExport === undefined || inExport === undefined ? undefined : inExport + row.inExport;
  }
  if (inExport !== undefined) {
    total.inExport = inExport;
    total.notYetSent = rows.reduce((n, r) => n + (r.notYetSent ?? 0), 0);
  }
  return total;
}

/** Parents that hold records back (released ones hold none); the ones holding most first. */
function blockedOf(data: CheckpointData | undefined): LedgerView['blockedParents'] {
  const held = (m: BlockedMark) => (m.held.members ?? 0) + (m.held.messages ?? 0);
  return Object.entries(data?.blocked ?? {})
    .filter(([, mark]) => !mark.released && held(mark) > 0)
    .map(([key, mark]) => ({ key, ...mark }))
    .sort((a, b) => held(b) - held(a));
}

function trafficOf(data: CheckpointData | undefined): LedgerView['traffic'] {
  const sum = { ...emptyTraffic(), byCommand: { ...(data?.traffic ?? {}) } };
  for (const [command, t] of Object.entries(sum.byCommand)) {
    if (!SENDING_COMMANDS.includes(command)) continue;
    sum.requests += t.requests;
    sum.retries += t.retries;
    sum.rateLimited += t.rateLimited;
    sum.sendingMs += t.sendingMs;
  }
  return sum;
}

/**
 * Attachments not carried whose message is still held back: a message given up (dropped from the
 * rejects file) or sent as edited by replay no longer waits for its file.
 */
function mediaOf(data: CheckpointData | undefined): LedgerView['media'] {
  const held = Object.entries(data?.media?.notCarried ?? {}).filter(
    ([, hold]) => data?.files[`messages:${hold.file}`]?.open?.[hold.ordinal]?.code === MEDIA_NOT_CARRIED,
  );
  const byReason: Record<string, number> = {};
  for (const [, hold] of held) addTo(byReason, hold.reason);
  const examples = held.slice(0, EXAMPLES).map(([url, hold]) => ({ url, ...hold }));
  return { notCarried: held.length, byReason, examples };
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What an undo left on the service and why: the dry run's words and the status line's. */
export function keptWords(kept: UndoKept): string {
  const parts: string[] = [];
  if (kept.existing > 0)
    parts.push(`${count(kept.existing, 'record')} the service already had when this migration sent them`);
  if (kept.unfound > 0)
    parts.push(`${count(kept.unfound, 'message')} created without a service id the service's list did not give either`);
  return parts.join(', ');
}

/** How a run that did not finish its work ended, in words. */
const STOPPED_WORDS: Record<string, string> = { failed: 'failed', interrupted: 'was interrupted', running: 'crashed' };

/** The one status line every output shows, by the rules of docs/report.md. */
/** Skips a person asked for (a window, --since): not the export's messages going missing. */
export const DECIDED_SKIPS: ReadonlySet<string> = new Set([BEYOND_RETENTION, 'before-since']);

/**
 * Every message of the export skipped, none of them by a window the person set (join events only,
 * say): nothing of the conversations is in, whatever else is. Says how many and why, or undefined.
 */
function allMessagesSkipped(row: LedgerRow | undefined): string | undefined {
  if (!row?.inExport || row.skipped !== row.inExport || row.imported + row.alreadyPresent > 0) return undefined;
  const reasons = Object.entries(row.skippedBy);
  if (reasons.some(([reason]) => DECIDED_SKIPS.has(reason))) return undefined;
  const why = reasons.map(([reason, n]) => `${reason} ${n}`).join(', ');
  return `none of the ${count(row.inExport, 'message')} of the export is in: every one was skipped (${why})`;
}

function statusOf(view: LedgerView, data: CheckpointData | undefined): Pick<LedgerView, 'state' | 'statusLine'> {
  const files = Object.values(data?.files ?? {});
  if (data?.undone && files.length === 0) {
    const d = data.undone.deleted;
    const what =
      `${count(d.messages, 'message')}, ${count(d.members, 'member')}, ` +
      `${count(d.groups, 'group')} and ${count(d.users, 'user')}`;
    const kept = data.undone.kept;
    const left = kept === undefined ? '; nothing of this migration is on the service.' : `; kept: ${keptWords(kept)}.`;
    return { state: 'undone', statusLine: `Undone: ${what} this migration created were deleted${left}` };
  }
  // A run still `running` in the ledger was killed before it could say how it ended.
  const last = data?.lastRun;
  const ended = last && SENDING_COMMANDS.includes(last.command) ? STOPPED_WORDS[last.status] : undefined;
  const how = ended && `the last ${last!.command} ${ended}`;
  if (data?.undoing) {
    const { done, total } = data.undoing;
    const answered = `${count(done, 'delete')} of ${total.toLocaleString('en-US')} answered`;
    return { state: 'undoing', statusLine: `Undo under way: ${answered}; run undo --yes again to finish.` };
  }
  if (!data || files.length === 0) {
    if (how) return { state: 'incomplete', statusLine: `Incomplete: ${how}.` };
    return { state: 'not-started', statusLine: 'Not started: no import has run yet.' };
  }
  const unread = (data.planned ?? []).some((e) => !data.phasesDone.includes(e)) || files.some((f) => !f.complete);
  const { total, media } = view;
  if (unread) {
    const left = total.notYetSent ? `, ${count(total.notYetSent, 'record')} not yet sent` : '';
    return { state: 'incomplete', statusLine: `Incomplete: ${how ?? 'the export is not read to the end yet'}${left}.` };
  }
  const open: string[] = [];
  if (total.open + total.fileProblems > 0) open.push(`${count(total.open + total.fileProblems, 'open reject')}`);
  if (total.blocked > 0) open.push(`${count(total.blocked, 'record')} blocked by a user or group not in`);
  if (media.notCarried > 0) open.push(`${count(media.notCarried, 'attachment')} not carried`);
  if (open.length > 0) return { state: 'open', statusLine: `Not complete: ${open.join(' and ')}.` };
  const skipped = allMessagesSkipped(view.entities.messages);
  if (skipped) return { state: 'open', statusLine: `Not complete: ${skipped}.` };
  const verified = view.verified;
  if (verified?.current && !verified.ok) {
    const missing = `${count(verified.missing, 'record')} missing, ${verified.different} different`;
    // The way out, where the verdict is read: repair sends the missing ones (a different one it cannot).
    const repair = verified.missing > 0 ? '; `chat-migrate verify --repair` sends the missing ones again' : '';
    return {
      state: 'verify-failed',
      statusLine: `Not complete: the last verify found ${missing} on the service${repair}.`,
    };
  }
  const proof = verified?.current ? ', and the last verify found all of it on the service' : '';
  // Skipped on purpose like deleted ones, but history a person may still want: the line says so.
  const old = total.skippedBy[BEYOND_RETENTION] ?? 0;
  const except = old > 0 ? ` but ${count(old, 'message')} older than the retention window (beyond-retention)` : '';
  return { state: 'complete', statusLine: `Complete: every record of the export is in${except}${proof}.` };
}
