import type { RunLogLine } from '../../checkpoint/run-log-file.js';
import type { EntityName } from '../../entities/types.js';
import type { EntityCounts } from '../../pipeline/events.js';
import type { ImportSummary } from '../../pipeline/import/summary.js';

/** Commands whose runs send records and sample their pace: the charts draw them, end to end. */
export const CHARTED_COMMANDS = new Set(['import', 'demo', 'replay']);

/** One run, put together from its lines of the run log. */
export interface RunRecord {
  run: string;
  command: string;
  startedAt: number;
  /** The last line's time when the run has no end line (it crashed, or is still going). */
  endedAt: number;
  /** From the end line; `crashed` when there is none. */
  status: string;
  ended: boolean;
  interrupted?: string;
  resumed: boolean;
  start: RunLogLine;
  summary?: ImportSummary;
  rejectsByCode?: Record<string, number>;
  /** What ended a failed run: its code and message. */
  error?: { code: string; message?: string };
  phases: PhaseRecord[];
  samples: SampleLine[];
  /** Every other line by type (validate-end, verify-end, ...): the last of each. */
  events: Record<string, RunLogLine>;
}

export interface PhaseRecord {
  entity: EntityName;
  startedAt: number;
  endedAt?: number;
  expected?: number;
  completed?: boolean;
  counts?: EntityCounts;
}

/** A sample line, as sampleRun (src/pipeline/run/run-samples.ts) writes it. */
export interface SampleLine {
  t: number;
  records: number;
  requests: number;
  retries: number;
  rateLimited: number;
  p50?: number;
  p95?: number;
  rate?: number;
  phase?: EntityName;
  phaseDone?: number;
}

/** Groups the run log's lines by run, in the order the runs started. Lines of an unknown run are dropped. */
export function runsOf(lines: RunLogLine[]): RunRecord[] {
  const runs = new Map<string, RunRecord>();
  for (const line of lines) {
    if (line.type === 'run-start') {
      runs.set(line.run, {
        run: line.run,
        command: String(line.command ?? '?'),
        startedAt: line.t,
        endedAt: line.t,
        status: 'crashed',
        ended: false,
        resumed: false,
        start: line,
        phases: [],
        samples: [],
        events: {},
      });
      continue;
    }
    const run = runs.get(line.run);
    if (!run) continue;
    run.endedAt = Math.max(run.endedAt, line.t);
    switch (line.type) {
      case 'phase-start':
        run.phases.push({ entity: line.entity as EntityName, startedAt: line.t, expected: line.expected as number });
        break;
      case 'phase-end': {
        const phase = run.phases.findLast((p) => p.entity === line.entity && p.endedAt === undefined);
        if (phase) Object.assign(phase, { endedAt: line.t, completed: line.completed, counts: line.counts });
        if (line.sample) run.samples.push({ ...(line.sample as SampleLine), t: line.t });
        break;
      }
      case 'sample':
        run.samples.push(line as unknown as SampleLine);
        break;
      case 'interrupt':
        run.interrupted ??= String(line.signal);
        break;
      case 'resume':
        run.resumed = true;
        break;
      case 'run-end':
        run.ended = true;
        run.status = String(line.status);
        run.summary = line.summary as ImportSummary | undefined;
        run.rejectsByCode = line.rejectsByCode as Record<string, number> | undefined;
        run.error = (line.error ?? run.summary?.error) as RunRecord['error'];
        break;
      default:
        run.events[line.type] = line;
    }
  }
  return [...runs.values()].sort((a, b) => a.startedAt - b.startedAt);
}
