/** Shared record types. Every stage speaks these; none of them knows about HTTP or file formats. */

export type EntityName = 'users' | 'groups' | 'members' | 'messages';

/** Import order that the service needs: each phase finishes before the next starts. */
export const ENTITY_ORDER: readonly EntityName[] = ['users', 'groups', 'members', 'messages'];

export type JsonObject = { [key: string]: unknown };

/** One record as a source read it, before mapping. `ordinal` counts records (good or bad) in the file from 0. */
export interface SourceRecord {
  kind: 'record';
  value: JsonObject;
  file: string;
  /** 1-based line where the record starts (JSON, NDJSON) or ends (CSV multi-line rows); 0 when unknown. */
  line: number;
  ordinal: number;
  /** The key under which an id-keyed JSON object held this record (used when the record lacks its id). */
  key?: string;
  /**
   * Set by a preset for a record it reads but must not send (e.g. a bot message): counted as skipped
   * with this reason.
   */
  skip?: string;
  /** A user's e-mail, where a preset's export has one (not sent): what a `userMap` keyed by e-mail matches. */
  email?: string;
}

/**
 * `userMap` / `groupMap`: export ids (lower-cased) -> the ids the app already has. References to a
 * mapped id are rewritten; a mapped user or group itself is not sent.
 */
export interface IdMaps {
  users?: ReadonlyMap<string, string>;
  groups?: ReadonlyMap<string, string>;
}

/**
 * Service ids that more than one export id turned into (a preset's id rule can do that): the
 * lower-cased id -> those export ids. Filled while the preset plans and reads.
 */
export type IdCollisions = ReadonlyMap<string, readonly string[]>;

/**
 * Input that could not be parsed into a record: reported with its place, and reading goes on where the
 * format allows.
 */
export interface SourceProblem {
  kind: 'problem';
  file: string;
  line: number;
  /** Set when the problem stands for a record slot (e.g. a bad CSV row), so ordinals stay stable. */
  ordinal?: number;
  /** Stable rule code, e.g. `input.csv-columns`, `input.json-syntax`, `input.utf8`, `input.empty-file`. */
  rule: string;
  message: string;
  /** True when the rest of the file could not be read after this problem. */
  fatalForFile?: boolean;
}

export type SourceItem = SourceRecord | SourceProblem;

export type Severity = 'error' | 'warning';

/** One finding of validation, about one record. */
export interface Problem {
  rule: string;
  severity: Severity;
  field?: string;
  message: string;
}

/**
 * The problem list of a record that has none: one frozen array shared by the mapper and validation,
 * so a clean record costs no allocation. Never push to a record's problems; build a new list.
 */
export const NO_PROBLEMS = Object.freeze([]) as unknown as Problem[];

/** A mapped record, in the API's own field names, ready to validate and send. */
/** The reject of a message held back because a file of it could not be carried (import-pass.ts). */
export const MEDIA_NOT_CARRIED = 'media.not-carried';

/** The entities a member or message can be held back by. */
export type ParentEntity = 'users' | 'groups';

/** The reason of a parent no record of the export has (and no map or details object names). */
export const MISSING_PARENT = 'missing';

/**
 * A user or group that is not in (rejected by a rule or the service, skipped, or missing from the
 * export), and what it holds back: its members and messages wait for it (docs/resume-and-rejects.md).
 */
export interface BlockedParent {
  entity: ParentEntity;
  id: string;
  /** The parent's own place; a missing parent's is the first child that named it. */
  file: string;
  line: number;
  /** Why it is not in: the rule or the service's code, `skipped:<reason>`, or `missing` (MISSING_PARENT). */
  reason: string;
  /** Records held back this reading, per entity. */
  held: { members: number; messages: number };
  /** A missing parent: the first child that named it, and the reference rule validate reports it under. */
  firstChild?: { entity: EntityName; id: string; rule: string; field: string };
}

/**
 * A message older than the app's retention window (retentionDays): the skip reason when the tool
 * leaves it out, and the reject code when the service refused it (pipeline/retention.ts).
 */
export const BEYOND_RETENTION = 'beyond-retention';

export interface MappedRecord {
  entity: EntityName;
  /** The API payload (uid/guid/memberId/muid inside). */
  payload: JsonObject;
  /** The key the request body uses (equal to the id inside the payload). */
  id: string;
  /** The original source record, for the rejects file. */
  source: JsonObject;
  file: string;
  line: number;
  ordinal: number;
  /** Problems found while mapping (bad JSON text in a CSV cell, an unparsable timestamp); validation adds its own. */
  problems: Problem[];
  /**
   * Set by ExportIndex in bloom mode when an earlier message may have had the same muid (a Bloom
   * filter hit: a true duplicate or, rarely, a false positive). Import sends it anyway; an
   * already-exists answer for it is then the export's duplicate (`suspectDuplicateProblem`).
   */
  duplicateSuspect?: true;
  /**
   * Import, with `duplicateSuspect`: an earlier message may also have had the same content (a second
   * Bloom filter, over muid and content hash). An already-exists answer then skips it as `duplicate`.
   */
  sameContentSuspect?: true;
  /**
   * Set when the record must not be sent: it is counted as skipped with this reason. `duplicate`: the
   * same record (identical after mapping) came before under the same id.
   */
  /** Sent by replay from the rejects file as the user edited it, not from the export. */
  replayed?: true;
  /**
   * Set by ExportIndex on a member or message whose user or group is not in (rejected, skipped, or
   * missing from the export): the record is held, not sent, until that parent gets in. The first such
   * parent it names.
   */
  blockedBy?: BlockedParent;
  /** Set by ExportIndex when a parent it names was blocked in an earlier run: done slots are sent again. */
  heldBefore?: true;
  /** Set by the media pass: attachments carried into the bucket, and those it could not carry (why). */
  media?: {
    carried: string[];
    notCarried: Array<{ url: string; reason: string }>;
    /** Files missing at their source, left out of the message (`replay --without-missing-files`). */
    without?: Array<{ url: string; reason: string }>;
  };
  skip?: 'permanently-deleted' | 'soft-deleted' | 'before-since' | 'duplicate' | (string & {});
}
