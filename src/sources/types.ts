import type { SourceFormat } from '../config/types.js';
import type { EntityName } from '../entities/types.js';

/** One input file, found by `resolveSourceFiles`. */
export interface ResolvedFile {
  /** Absolute path. */
  path: string;
  /** Relative to cwd when inside it, absolute otherwise: what messages show (`users.csv:12`). */
  display: string;
  format: SourceFormat;
  gzip: boolean;
}

export interface ReadOptions {
  /**
   * Aborting ends the iteration at the next chunk or record, quietly: check `signal.aborted` to tell a
   * cut-short read.
   */
  signal?: AbortSignal;
  /** The entity being read: picks the key of an API-shaped JSON wrapper (`{"users": {...}}`). */
  entity?: EntityName;
  /**
   * CSV files from this size on are parsed in a worker thread (0: always; unset: never). validate sets
   * it; import does not, as the sandbox or the network has the other core and the worker's heap
   * would take import past its memory budget.
   */
  csvWorkerMinBytes?: number;
  /**
   * A JSON object's member whose value is not an object or array (a string, number, boolean or null) is
   * a record `{value}` with the member's name as its key, instead of a problem: an id map written by
   * hand as `{"old-id": "app-uid"}`, whose reader then judges the value.
   */
  keyedScalars?: boolean;
  /**
   * Read on from here instead of the file's start (NDJSON and CSV files, not gzipped): where an earlier
   * reading to the end stopped. A CSV file's header is read from the start all the same.
   */
  from?: ResumePoint;
  /** Called once a reading ended at the file's end with no problem of the file: where it ended. */
  onEnd?(end: ReadEnd): void;
}

/** A place in a file between two lines: its byte offset, the line there (1-based) and the record slot. */
export interface ResumePoint {
  byte: number;
  line: number;
  ordinal: number;
}

/** Where a reading to the end stopped: the line after the last, and whether the file ended on a newline. */
export interface ReadEnd {
  line: number;
  newline: boolean;
}
