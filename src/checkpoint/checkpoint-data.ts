/** What the checkpoint file holds (the migration's ledger and its progress per file), as types. */
import { createHash } from 'node:crypto';
import type { EntityName } from '../entities/types.js';
import type { FileProgressData } from './file-progress.js';
import type { MediaHold, Traffic, UndoMark, VerifyMark } from './ledger-marks.js';

export const CHECKPOINT_VERSION = 1;

/** Cumulative counts across runs, per entity. */
export interface EntityTotals {
  imported: number;
  alreadyPresent: number;
  rejected: number;
  skipped: number;
  /** Skipped records by reason (deleted, before --since, a preset's bots...). */
  skippedBy?: Record<string, number>;
  /** Rejected records that got in later (a fixed line, a replay, a reference that came). */
  resolved?: number;
  /** Rejected records the user took out of the rejects file before a replay: no longer open. */
  dropped?: number;
  /** `dropped` by the code each was rejected with. */
  droppedBy?: Record<string, number>;
  /** Of `imported`, records brought in by replay from the rejects file as edited. */
  replayed?: number;
  /** Records verify --repair found missing and sent again. */
  repaired?: number;
  /** Messages in without the files missing at their source (`replay --without-missing-files`). */
  withoutFiles?: number;
  /** Records the last reading of the entity to its end met. */
  inExport?: number;
  /** Members or messages held back by a user or group not in, as the last reading to its end met them. */
  blocked?: number;
}

/**
 * A user or group that was not in when its entity was last read to the end (or, missing from the
 * export, when its children were), and what it held back.
 * Its children's slots are acknowledged without being sent: while it is in this table a run reads
 * them as held, and the run that finds it in sends them (docs/resume-and-rejects.md).
 */
export interface BlockedMark {
  entity: 'users' | 'groups';
  id: string;
  file: string;
  line: number;
  /** The rule or service code it was refused with, `skipped:<reason>`, or `missing` (at its first child). */
  reason: string;
  /** Children held back, per entity, at the last reading to its end. */
  held: { members?: number; messages?: number };
  /** It got in; kept until a run has read (and sent) all its children. */
  released?: true;
}

/** What is on disk. Never holds the apiKey: only where the run goes and how far it got. */
export interface CheckpointData {
  version: number;
  tool: 'chat-migrate';
  target: { baseUrl: string; appId?: string };
  /** Hash of the configured sources (entity -> path patterns): another set of sources is another migration. */
  sourcesHash: string;
  /**
   * A preset's id rule (`idRule`): under another one every record would get other ids. Absent without
   * a preset, and in a preset's checkpoint written before the key existed (it was `collision-free`).
   */
  idRule?: string;
  createdAt: string;
  updatedAt: string;
  /** Entities whose phase finished in some run. */
  phasesDone: EntityName[];
  /** Per source file, keyed `<entity>:<file as displayed>`. */
  files: Record<string, FileProgressData & { entity: EntityName; file: string }>;
  totals: Partial<Record<EntityName, EntityTotals>>;
  /** The rejects file's mark when this checkpoint was taken (see CheckpointCompanion). */
  rejects?: CompanionMark;
  /** The id log's mark, likewise (id-log.ts). */
  imported?: CompanionMark;
  /** The entities the last import planned: one not done yet leaves the migration incomplete. */
  planned?: EntityName[];
  /** Requests per command, across runs (ledger.ts). */
  traffic?: Record<string, Traffic>;
  /** Users and groups not in whose children are held, by `<entity>:<lower-cased id>`. */
  blocked?: Record<string, BlockedMark>;
  /** Attachments not carried, by the URL shown, until a run carries them. */
  media?: { notCarried?: Record<string, MediaHold> };
  /** The last verify's verdict; it speaks for the service only when newer than `changedAt`. */
  verified?: VerifyMark;
  /** When a run last changed what the service holds. */
  changedAt?: string;
  /** Set by undo; cleared when an import sends again. */
  undone?: UndoMark;
  /** An undo under way (stopped or killed before its end): deletes answered of all. */
  undoing?: { done: number; total: number };
  /** The last run that wrote this ledger and how it ended (`running` until it does: a crash leaves it). */
  lastRun?: { command: string; status: string; at: string; error?: string };
}

/** The companions a checkpoint keeps marks of, by the field that holds the mark. */
export type CompanionName = 'rejects' | 'imported';

/** Where a companion file stood when a checkpoint was taken; only the companion reads it. */
export interface CompanionMark {
  path: string;
  bytes: number;
  /** The run that wrote the file up to here. */
  run: string;
  /** A hash of the bytes just before `bytes`: tells whether the file is still the one marked. */
  before: string;
  /** The run closed the file here, every line marked: what follows or differs is a person's edit. */
  closed?: true;
}

/**
 * A file appended to beside the checkpoint (the rejects file) whose lines belong to acknowledged
 * records only. Each checkpoint records its mark, taken in the same tick as the acknowledgements it
 * holds, and has its bytes on disk before the checkpoint is: a resume can tell the lines beyond the
 * mark, which it writes again, from the ones it must keep.
 */
export interface CheckpointCompanion {
  /** The mark once everything written so far is on disk. */
  readonly mark: CompanionMark;
  /** Puts everything written so far on disk. */
  persist(): Promise<void>;
  /** Set once the file is closed with every line it holds marked (`mark` with `closed`). */
  readonly closedMark?: CompanionMark;
}

export interface CheckpointIdentity {
  target: { baseUrl: string; appId?: string };
  sourcesHash: string;
  /** The run's id rule when it reads a preset; undefined leaves the checkpoint's unchecked. */
  idRule?: string;
}

/** The rule of a preset's checkpoint that names none: the only one there was before `idRule`. */
export const EARLIER_ID_RULE = 'collision-free';

export function hashSources(sources: unknown): string {
  return createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 16);
}
