import { ExitCode } from '../errors.js';
import type { MigrateConfig } from '../config/schema.js';
import type { PullOptions, PullSummary } from '../pipeline/pull/pull-in-run.js';
import type { SourceName } from '../systems/shared/pull-types.js';
import { formatDuration } from '../report/summary.js';
import { plural } from '../report/words.js';
import { runInCommand } from './command-run.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import type { CommandContext } from './context.js';

interface PullFlags extends CommonOptions {
  out: string;
  since?: number | 'auto';
  baseUrl?: string;
  guild?: string;
}

export async function pullAction(ctx: CommandContext, source: SourceName, opts: PullFlags): Promise<number> {
  opts = { ...opts, out: ctx.resolve(opts.out) };
  const { config, warnings } = await loadCommandConfig(ctx, opts, false);
  ctx.warn(warnings);
  const { pullInRun, pullLockOf } = await import('../pipeline/pull/pull-in-run.js');
  const { PULL_TERMS } = await import('../report/figures.js');
  const since =
    opts.since === undefined
      ? undefined
      : opts.since === 'auto'
        ? ({ mode: 'auto' } as const)
        : ({ mode: 'time', timeMs: opts.since * 1000 } as const);
  const summary = await runInCommand(
    ctx,
    {
      command: 'pull',
      config,
      ledger: 'none',
      json: opts.json,
      terms: PULL_TERMS,
      stoppingNotice: 'stopping: the pages written so far are kept; run the same command again to go on',
      start: { source, out: opts.out, since: opts.since },
      locks: [pullLockOf(opts.out)],
    },
    (run) =>
      pullInRun(run, {
        ...pullSettings(ctx, config, source, opts.out, opts.guild),
        since,
        baseUrl: opts.baseUrl ?? config.sourceBaseUrl,
      }),
    (s) => ({ status: 'complete', fields: { folder: s.folder, kind: s.kind, pulled: totals(s) } }),
  );
  if (opts.json) ctx.stdout.write(`${JSON.stringify(summary)}\n`);
  else ctx.stdout.write(describe(summary));
  return ExitCode.ok;
}

/** What a pull takes from the config and the environment: `pull` and `sync` start theirs alike. */
export function pullSettings(
  ctx: CommandContext,
  config: MigrateConfig,
  source: SourceName,
  out: string,
  guild?: string,
): PullOptions {
  return {
    source,
    out,
    lookbackMinutes: config.lookbackMinutes,
    baseUrl: config.sourceBaseUrl,
    requestsPerMinute: config.sourceRequestsPerMinute,
    concurrency: config.sourceConcurrency,
    guild,
    env: ctx.env,
    secrets: (values) => {
      for (const value of values) ctx.registerSecret(value);
    },
  };
}

const totals = (s: PullSummary) =>
  Object.fromEntries(Object.entries(s.counts).map(([entity, c]) => [entity, c.imported + c.resumed]));

function describe(s: PullSummary): string {
  const what = s.kind === 'full' ? 'everything' : `what is new since ${s.since}`;
  const lines = [`Pulled ${what} from ${s.source} into ${s.out}/${s.folder}${s.resumed ? ' (resumed)' : ''}:`];
  for (const [entity, c] of Object.entries(s.counts)) {
    const earlier = c.resumed > 0 ? `, ${c.resumed} by the run before` : '';
    const already = c.skipped > 0 ? `, ${c.skipped} pulled before and left out` : '';
    lines.push(`  ${entity.padEnd(9)}${c.imported} written${earlier}${already}`);
  }
  const rate = s.rateLimited > 0 ? `, ${plural(s.rateLimited, '429')}` : '';
  const retries = plural(s.retries, 'retry', 'retries');
  const requests = `${plural(s.requests, 'request')} (${retries}${rate})`;
  lines.push(`  ${plural(s.files, 'file')}, ${requests} in ${formatDuration(s.elapsedMs)}`);
  lines.push(`Next: chat-migrate import --preset ${s.source} --from ${s.out}`);
  return `${lines.join('\n')}\n`;
}
