import type { EntityName } from '../../entities/types.js';

/** A record of the export, located, as the report lists it. */
export interface LocatedRecord {
  id: string;
  file: string;
  line: number;
}

export interface DifferentRecord extends LocatedRecord {
  /** Each compared field that differs: the export's value (after the mapping) and the service's. */
  fields: { field: string; expected: string; actual: string }[];
}

/** What verify found for one entity. */
export interface EntityVerdict {
  /** Records of the export the import sends (a sample of them with --sample). */
  expected: number;
  /** On the service with the same compared fields. */
  present: number;
  different: number;
  /** Not on the service (messages beyond retention are not among them). */
  missing: number;
  /** Messages older than the retention window and not on the service: never readable, not missing. */
  beyondRetention: number;
  /** On the service, not in the export (not counted with --sample). */
  extra: number;
  extraIds: string[];
  /** Listed by the service more than once. */
  repeated: number;
  /** Records the import does not send: refused by its checks, blocked by a parent not in, or unreadable. */
  refused: number;
  /** Skipped on purpose, as import skips them (deleted, before --since, exact copies). */
  skipped: number;
  /** Items the service listed. */
  serviceRead: number;
  /**
   * Compared fields the export gives that no item the service listed carries at all: not compared,
   * so neither counted nor repaired as different (the service does not show them).
   */
  notShown?: string[];
  missingRecords: LocatedRecord[];
  differentRecords: DifferentRecord[];
}

export interface VerifyResult {
  entities: Partial<Record<EntityName, EntityVerdict>>;
  /** Every verified record is present and equal. */
  ok: boolean;
  /** Records per entity compared, when a sample was asked for. */
  sample?: number;
  /** The window in days (0: unlimited). */
  retentionDays: number;
  requests: number;
  retries: number;
  elapsedMs: number;
  /** How the comparison was held: in how many parts, the most expected records in memory at once. */
  held?: { parts: number; atMost: number };
  /**
   * With a window: message files not read, as import does not read them again (unchanged since a
   * reading to their end) and all older than the window; their messages are counted nowhere.
   */
  filesNotRead?: number;
  /** With --repair: what was sent again before this (second) verification. */
  repair?: RepairOutcome;
}

/** The most records of each kind listed by id (the rest are counted). */
export const LISTED_AT_MOST = 100_000;

export const emptyVerdict = (): EntityVerdict => ({
  expected: 0,
  present: 0,
  different: 0,
  missing: 0,
  beyondRetention: 0,
  extra: 0,
  extraIds: [],
  repeated: 0,
  refused: 0,
  skipped: 0,
  serviceRead: 0,
  missingRecords: [],
  differentRecords: [],
});

/** What `verify --repair` sent, and what the service said. */
export interface RepairOutcome {
  /** Records found missing and sent again, per entity. */
  sent: Partial<Record<EntityName, number>>;
  imported: number;
  /** The service said it had them already: it lists them nowhere verify reads (a case for the vendor). */
  alreadyPresent: number;
  rejected: (LocatedRecord & { code: string; message: string })[];
  requests: number;
}
