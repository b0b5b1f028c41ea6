import type { SourceName } from '../systems/shared/pull-types.js';
import type { SyncSummary } from '../pipeline/sync/sync-in-run.js';
import { keepWasmCompileSmall } from './heap-budget.js';
import { runInCommand } from './command-run.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { planRun, presetIdentity } from './plan-run.js';
import { pullSettings } from './pull-command.js';
import type { CommandContext } from './context.js';

interface SyncFlags extends CommonOptions {
  out: string;
  final?: boolean;
  guild?: string;
  /** Stop after this many rounds (a CI job that syncs for a while). */
  rounds?: number;
}

/**
 * `sync <source> --out <dir>`: the pull, the import of the folder it writes (preset = the source,
 * from = the folder) and a verify, round after round; `--final`: one last round and a full verify,
 * the cutover (docs/cutover.md).
 */
export async function syncAction(ctx: CommandContext, source: SourceName, opts: SyncFlags): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(
    ctx,
    { ...opts, preset: source, from: opts.out },
    true,
    true,
  );
  ctx.warn(warnings);
  keepWasmCompileSmall();
  const [{ syncInRun, syncEnd }, { pullLockOf }] = await Promise.all([
    import('../pipeline/sync/sync-in-run.js'),
    import('../pipeline/pull/pull-in-run.js'),
  ]);
  const final = Boolean(opts.final);
  const summary = await runInCommand(
    ctx,
    {
      command: final ? 'sync --final' : 'sync',
      config,
      ledger: 'write',
      sourcesIdentity: presetIdentity(config, baseDir),
      idRule: config.idRule,
      json: opts.json,
      stepSummary: true,
      stoppingNotice: 'stopping: the round under way ends at a safe point; run the same command again to go on',
      start: { source, out: opts.out, final, intervalSeconds: config.syncIntervalSeconds },
      locks: [pullLockOf(config.from!)],
    },
    (run) =>
      syncInRun(run, {
        final,
        intervalMs: config.syncIntervalSeconds * 1000,
        maxRounds: opts.rounds,
        pull: pullSettings(ctx, config, source, config.from!, opts.guild),
        plan: async () => {
          const plan = await planRun(config, baseDir, { writeIdMap: true });
          ctx.warn(plan.warnings);
          return plan;
        },
      }),
    syncEnd,
  );
  if (opts.json) ctx.stdout.write(ctx.redact(`${JSON.stringify(summary)}\n`));
  else ctx.stdout.write(ctx.redact(describe(summary)));
  return summary.exitCode;
}

function describe(s: SyncSummary): string {
  const lines: string[] = [];
  const rounds = s.rounds.length === 1 ? '1 round' : `${s.rounds.length} rounds`;
  if (s.error)
    lines.push(`Sync failed after ${rounds}: ${s.error.message}${s.error.hint ? `\n  ${s.error.hint}` : ''}`);
  else if (s.status === 'interrupted')
    lines.push(`Sync stopped within a round after ${rounds}: run it again to go on.`);
  else if (!s.final) lines.push(`Sync ${s.status === 'stopped' ? 'stopped' : 'ended'} after ${rounds}.`);
  lines.push(`Migration: ${s.statusLine}`);
  if (s.status === 'cutover-incomplete')
    lines.push('Next: chat-migrate verify --repair (what the service lacks), then chat-migrate sync --final again');
  return `${lines.join('\n')}\n`;
}
