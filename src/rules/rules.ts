import type { Problem, Severity } from '../entities/types.js';
import { MESSAGE_RULES } from './codes/message-codes.js';
import { RECORD_RULES } from './codes/record-codes.js';
import type { RuleInfo } from './rule-info.js';

export type { RuleInfo } from './rule-info.js';

// `as const` in each part keeps the codes a union type, so a misspelt code in a rule file fails to
// compile instead of emitting a rule nobody documented. The order is the docs' order.
const RULE_TABLE = [...RECORD_RULES, ...MESSAGE_RULES] as const;

export type RuleCode = (typeof RULE_TABLE)[number]['code'];

/** Every rule code validation can emit, in a stable order. */
export const RULES: readonly RuleInfo[] = RULE_TABLE;

const SEVERITY = new Map<string, Severity>(RULE_TABLE.map((r) => [r.code, r.severity]));

/** Builds a problem whose severity comes from the rule table, so one code never has two severities. */
export function problem(rule: RuleCode, field: string | undefined, message: string): Problem {
  const p: Problem = { rule, severity: SEVERITY.get(rule) ?? 'error', message };
  if (field !== undefined) p.field = field;
  return p;
}
