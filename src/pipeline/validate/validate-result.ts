import type { EntityName, Severity } from '../../entities/types.js';
import type { UnlistedHosts } from '../../media/unlisted-hosts.js';
import type { ExpiringMedia } from './expiring-media.js';

/** One problem, located. The same shape goes to the text report, the JSON report and tests. */
export interface LocatedProblem {
  file: string;
  line: number;
  entity: EntityName;
  id?: string;
  field?: string;
  rule: string;
  severity: Severity;
  message: string;
}

export interface ValidateResult {
  errors: LocatedProblem[];
  warnings: LocatedProblem[];
  /** Counts of all problems found, including ones beyond the kept lists. */
  byRule: Record<string, number>;
  byEntity: Partial<Record<EntityName, { records: number; errors: number; warnings: number; skipped: number }>>;
  recordsRead: number;
  errorCount: number;
  warningCount: number;
  /** Set when --max-errors stopped the run early. */
  stoppedEarly: boolean;
  /** References that could not be checked because an entity's export is not configured. */
  notChecked: string[];
  /** Attachments on hosts whose links end with the old system, not covered by `media` (set by the caller). */
  expiringMedia?: ExpiringMedia;
  /** With `media` set: attachments on hosts not on `media.hosts`, which keep their URL (set by the caller). */
  unlistedMedia?: UnlistedHosts;
  /** Messages older than the service's retention window (retentionDays): import skips them (beyond-retention). */
  beyondRetention: number;
  /** The export's files its preset read nothing of (set by the caller). */
  unreadFiles?: string[];
  /**
   * Set when every message read would be skipped on purpose (none beyond the window, no --since, a run
   * read to its end): how many. The import would send none of the conversations.
   */
  allMessagesSkipped?: number;
  /** Set when some are: the window, the day it starts (UTC) and the first of them, located. */
  retention?: RetentionNote;
}

/** What validate says of the messages beyond the retention window (pipeline/retention.ts). */
export interface RetentionNote {
  days: number;
  /** `2026-05-31`: messages sent before this day are beyond it. */
  cutoff: string;
  /** The first ones in export order (at most `OLD_NAMED`). */
  first: Array<{ file: string; line: number }>;
  /** Errors import would meet if the window allowed them (beyond-window.ts): not the export's errorCount. */
  errors?: { count: number; listed: LocatedProblem[] };
}
