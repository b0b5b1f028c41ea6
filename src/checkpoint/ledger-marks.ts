/** The parts of the ledger (ledger.ts) that runs write into the checkpoint beside its acknowledgements. */
import type { EntityName } from '../entities/types.js';

/** Requests of one command across its runs: what the report sums as the migration's traffic. */
export interface Traffic {
  requests: number;
  retries: number;
  /** 429 answers. */
  rateLimited: number;
  /** Time spent sending (phases under way), in ms. */
  sendingMs: number;
}

/** An attachment that could not be carried, held back with its message until a run carries it. */
export interface MediaHold {
  reason: string;
  /** The message held back for it (the last one met). */
  file: string;
  line: number;
  ordinal: number;
}

/** The last verify's verdict, kept so the status line can say whether the service showed everything. */
export interface VerifyMark {
  at: string;
  ok: boolean;
  expected: number;
  present: number;
  missing: number;
  different: number;
  beyondRetention: number;
}

/** What `undo` took back: the ledger starts over, and says so until the next import sends. */
export interface UndoMark {
  at: string;
  deleted: Record<EntityName, number>;
  notFound: number;
  /** The earlier migration's files, renamed aside. */
  setAside: string[];
  /** Records of the id logs the undo left on the service (none: absent). */
  kept?: UndoKept;
}

/** What an undo leaves on the service, by why. */
export interface UndoKept {
  /** Answered already-exists when this migration sent them, with no earlier send unanswered: there before. */
  existing: number;
  /** Messages this migration created whose service id neither its logs nor the service's list gave. */
  unfound: number;
}

export const emptyTraffic = (): Traffic => ({ requests: 0, retries: 0, rateLimited: 0, sendingMs: 0 });
