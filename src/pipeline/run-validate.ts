import type { EntityName, Severity } from '../entities/types.js';
import { ExportIndex } from '../validate/index.js';
import { checkRecord } from './check-record.js';
import { createMapper } from './map.js';
import { readInputBatches, type EntityPlan } from './plan.js';

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
}

export interface ValidateOptions {
  plans: EntityPlan[];
  nowSec: number;
  importSoftDeleted: boolean;
  sinceSec?: number;
  /** Stop after this many errors (0: never). */
  maxErrors: number;
  signal?: AbortSignal;
}

/** Problems kept for printing; counting goes on past it so the totals stay true on a huge, broken export. */
const KEEP_AT_MOST = 100_000;

/**
 * The dry run: the same read -> map -> check path as import, in import order so references resolve
 * against what came before, with nothing sent. Memory holds id sets (in ExportIndex), not records.
 */
export async function runValidate(options: ValidateOptions): Promise<ValidateResult> {
  const configured = new Set(options.plans.map((p) => p.entity.name));
  const index = new ExportIndex({ configured, nowSec: options.nowSec });
  const result: ValidateResult = {
    errors: [],
    warnings: [],
    byRule: {},
    byEntity: {},
    recordsRead: 0,
    errorCount: 0,
    warningCount: 0,
    stoppedEarly: false,
    notChecked: index.uncheckedReferences(),
  };
  const add = (p: LocatedProblem) => {
    result.byRule[p.rule] = (result.byRule[p.rule] ?? 0) + 1;
    const entityCounts = result.byEntity[p.entity]!;
    if (p.severity === 'error') {
      result.errorCount++;
      entityCounts.errors++;
      if (result.errors.length < KEEP_AT_MOST) result.errors.push(p);
    } else {
      result.warningCount++;
      entityCounts.warnings++;
      if (result.warnings.length < KEEP_AT_MOST) result.warnings.push(p);
    }
    if (options.maxErrors > 0 && result.errorCount >= options.maxErrors) result.stoppedEarly = true;
  };

  outer: for (const plan of options.plans) {
    const entity = plan.entity;
    result.byEntity[entity.name] = { records: 0, errors: 0, warnings: 0, skipped: 0 };
    const entityCounts = result.byEntity[entity.name]!;
    for (const input of plan.inputs) {
      const mapper = createMapper({
        entity,
        map: plan.source.map,
        deletion: plan.source.deletion,
        importSoftDeleted: options.importSoftDeleted,
        sinceSec: options.sinceSec,
      });
      for await (const items of readInputBatches(input, { signal: options.signal, entity: entity.name })) {
        for (const item of items) {
          if (result.stoppedEarly || options.signal?.aborted) break outer;
          if (item.kind === 'problem') {
            if (item.ordinal !== undefined) {
              result.recordsRead++;
              entityCounts.records++;
            }
            add({ file: item.file, line: item.line, entity: entity.name, rule: item.rule, severity: 'error', message: item.message });
            continue;
          }
          result.recordsRead++;
          entityCounts.records++;
          const record = mapper(item);
          if (record.skip) {
            entityCounts.skipped++;
            continue;
          }
          const problems = checkRecord(record, index, options.nowSec);
          for (let i = 0; i < problems.length; i++) {
            add({ file: record.file, line: record.line, entity: entity.name, id: record.id || undefined, ...problems[i] });
          }
        }
      }
    }
  }
  if (!result.stoppedEarly) {
    for (const p of index.finish()) {
      add({ file: p.file, line: p.line, entity: p.entity, id: p.id, field: p.field, rule: p.rule, severity: p.severity, message: p.message });
    }
  }
  return result;
}
