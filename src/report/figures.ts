import type { EntityCounts, RetryNotice } from '../pipeline/events.js';

/**
 * The words of a phase's outcome, in the summary's order. The bar, the CI lines and the summary all
 * use these, so that what a person reads during the run is what the summary says at the end.
 */
/** The figures of a count that are plain numbers. */
export type CountKey = Exclude<keyof EntityCounts, 'skippedBy' | 'unchangedFiles'>;

export type OutcomeTerms = ReadonlyArray<readonly [CountKey, string]>;

export const OUTCOME_TERMS: OutcomeTerms = [
  ['imported', 'imported'],
  ['alreadyPresent', 'already there'],
  ['rejected', 'rejected'],
  ['blocked', 'blocked'],
  ['skipped', 'skipped'],
  ['resumed', 'done earlier'],
  ['unsent', 'not sent yet'],
];

/** Where a phase stands: every rate and ETA the tool shows comes from here. */
export interface Figures {
  /** Records settled in any way, including those done by an earlier run. */
  done: number;
  /** Records this run settled itself (not done earlier): only these say how fast this run goes. */
  handled: number;
  perSec: number;
  total?: number;
  percent?: number;
  etaSec?: number;
}

/**
 * Rate = records this run handled / time; ETA = what is left of the total at that rate. Records done by
 * an earlier run are passed over in moments: counted as speed, they made the ETA of a resume far too short.
 */
export function figuresOf(c: EntityCounts, total: number | undefined): Figures {
  const handled = c.imported + c.alreadyPresent + c.rejected + c.blocked + c.skipped;
  const done = handled + c.resumed;
  const perSec = c.elapsedMs > 0 ? handled / (c.elapsedMs / 1000) : 0;
  if (total === undefined || total <= 0) return { done, handled, perSec };
  const whole = Math.max(total, done);
  const left = whole - done;
  const etaSec = left === 0 ? 0 : perSec > 0 ? left / perSec : undefined;
  return { done, handled, perSec, total: whole, percent: Math.floor((done / whole) * 100), etaSec };
}

export const formatRate = (perSec: number): string => `${perSec.toFixed(1)} rec/s`;

export const formatEta = (seconds: number | undefined): string => {
  if (seconds === undefined) return '?';
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

/** `imported 1100, done earlier 2900`: the terms that are not zero (`imported 0` when all are). */
/** verify counts what it found on the service where import counts what was already there. */
export const VERIFY_TERMS: OutcomeTerms = [['alreadyPresent', 'found on the service']];

/** pull counts what it wrote as imported, and a delta's records pulled before as skipped. */
export const PULL_TERMS: OutcomeTerms = [
  ['imported', 'pulled'],
  ['skipped', 'pulled before'],
  ['resumed', 'done earlier'],
];

/** undo counts its deletes in the same figures (undo-in-run.ts). */
export const UNDO_TERMS: OutcomeTerms = [
  ['imported', 'deleted'],
  ['alreadyPresent', 'gone already'],
  ['rejected', 'refused'],
];

export function describeOutcome(c: EntityCounts, terms: OutcomeTerms = OUTCOME_TERMS): string {
  const shown = terms.filter(([key]) => c[key] > 0).map(([key, label]) => `${label} ${c[key]}`);
  return shown.length > 0 ? shown.join(', ') : `${terms[0][1]} 0`;
}

/** `retrying in 4 s (3/8): ECONNREFUSED 127.0.0.1:8796`; the wait counts down when `leftMs` is given. */
export function describeRetry(n: RetryNotice, leftMs = n.delayMs): string {
  const s = leftMs / 1000;
  const wait = s < 1 ? `${Math.max(0.1, s).toFixed(1)} s` : `${Math.round(s)} s`;
  return `retrying in ${wait} (${n.attempt}/${n.of}): ${n.reason}`;
}
