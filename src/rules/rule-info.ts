import type { EntityName, Severity } from '../entities/types.js';

/**
 * One rule code that validation can emit. Codes are stable: scripts filter on them, and docs/validate-rules.md
 * lists them (generated from this table by scripts/rules-doc.mjs).
 */
export interface RuleInfo {
  code: string;
  severity: Severity;
  entity: EntityName | 'any';
  description: string;
}
