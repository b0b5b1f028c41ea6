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
}
