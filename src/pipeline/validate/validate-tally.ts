import type { LocatedProblem, ValidateResult } from './validate-result.js';

/** Problems kept for printing; counting goes on past it so the totals stay true on a huge, broken export. */
export const KEEP_AT_MOST = 100_000;

/**
 * The counts and kept lists of a validate run. Each kept problem also keeps its item's place in the
 * reading order (`seq`: items read before it, over all entities), so duplicates that only the second
 * reading of the messages finds can be put where a one-pass check would have reported them, and a
 * --max-errors stop they move can be moved.
 */
export class ProblemTally {
  private errorSeq: number[] = [];
  private warningSeq: number[] = [];

  constructor(
    private readonly result: ValidateResult,
    private readonly maxErrors: number,
  ) {}

  /** Seqs of the kept errors, ascending. */
  get errorSeqs(): readonly number[] {
    return this.errorSeq;
  }

  /** Counts `p` and keeps it, unless the list is full. */
  add(p: LocatedProblem, seq: number): void {
    const r = this.result;
    this.count(p, 1);
    if (p.severity === 'error') {
      if (r.errors.length < KEEP_AT_MOST) {
        r.errors.push(p);
        this.errorSeq.push(seq);
      }
    } else if (r.warnings.length < KEEP_AT_MOST) {
      r.warnings.push(p);
      this.warningSeq.push(seq);
    }
    if (this.maxErrors > 0 && r.errorCount >= this.maxErrors) r.stoppedEarly = true;
  }

  /** Counts a problem kept elsewhere (the second reading's duplicates, merged later). */
  countOnly(p: LocatedProblem): void {
    this.count(p, 1);
  }

  /**
   * Puts the second reading's duplicates (errors, ascending seq, counted already) among the kept
   * errors. Within one record they go after its own problems and before its reference problems
   * (`ref.*`, which only ExportIndex reports), the order `ExportIndex.check` gives.
   */
  mergeErrors(dups: readonly LocatedProblem[], dupSeqs: readonly number[]): void {
    const errors = this.result.errors;
    const merged: LocatedProblem[] = [];
    const seqs: number[] = [];
    let i = 0;
    for (let j = 0; j < dups.length; j++) {
      const at = dupSeqs[j];
      while (
        i < errors.length &&
        (this.errorSeq[i] < at || (this.errorSeq[i] === at && !errors[i].rule.startsWith('ref.')))
      ) {
        merged.push(errors[i]);
        seqs.push(this.errorSeq[i++]);
      }
      merged.push(dups[j]);
      seqs.push(at);
    }
    for (; i < errors.length; i++) {
      merged.push(errors[i]);
      seqs.push(this.errorSeq[i]);
    }
    this.result.errors = merged.slice(0, KEEP_AT_MOST);
    this.errorSeq = seqs.slice(0, KEEP_AT_MOST);
  }

  /**
   * Forgets the problems of items after `seq`, counts included: the second reading's duplicates
   * made --max-errors stop there. Problems past the kept lists cannot be taken back; a run reaches
   * that only with more than 100,000 warnings before the stop.
   */
  dropAfter(seq: number): void {
    const r = this.result;
    const keep = (list: LocatedProblem[], seqs: number[]): void => {
      let n = list.length;
      while (n > 0 && seqs[n - 1] > seq) this.count(list[--n], -1);
      list.length = n;
      seqs.length = n;
    };
    keep(r.errors, this.errorSeq);
    keep(r.warnings, this.warningSeq);
  }

  /**
   * Puts `byRule`'s keys in the order the rules first occur in the reading, as one pass fills it (the
   * text report breaks ties in its counts by that order). Rules seen only past the kept lists go last.
   */
  orderRules(): void {
    const r = this.result;
    const first = new Map<string, [number, number]>();
    const note = (list: LocatedProblem[], seqs: number[], rank: number) => {
      for (let i = 0; i < list.length; i++) {
        if (!first.has(list[i].rule)) first.set(list[i].rule, [seqs[i], rank + i]);
      }
    };
    // The kept errors are in reading order; a warning of the same record sorts after them.
    note(r.errors, this.errorSeq, 0);
    note(r.warnings, this.warningSeq, KEEP_AT_MOST);
    const at = (rule: string) => first.get(rule) ?? [Infinity, Infinity];
    const rules = Object.keys(r.byRule).sort((a, b) => at(a)[0] - at(b)[0] || at(a)[1] - at(b)[1]);
    const byRule: Record<string, number> = {};
    for (const rule of rules) byRule[rule] = r.byRule[rule];
    r.byRule = byRule;
  }

  private count(p: LocatedProblem, by: 1 | -1): void {
    const r = this.result;
    const byRule = (r.byRule[p.rule] ?? 0) + by;
    if (byRule === 0) delete r.byRule[p.rule];
    else r.byRule[p.rule] = byRule;
    const entityCounts = r.byEntity[p.entity]!;
    if (p.severity === 'error') {
      r.errorCount += by;
      entityCounts.errors += by;
    } else {
      r.warningCount += by;
      entityCounts.warnings += by;
    }
  }
}
