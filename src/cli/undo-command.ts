import { ConfigError, ExitCode } from '../errors.js';
import type { PreparedUndo } from '../pipeline/undo/undo-in-run.js';
import { plural } from '../report/words.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';
import type { MigrateConfig } from '../config/schema.js';
import { DEFAULT_REST_REQUESTS_PER_MINUTE } from '../config/keys.js';
import { formatDuration } from '../report/summary.js';
import type { CommandContext } from './context.js';
import { keptWords } from '../checkpoint/ledger.js';

interface UndoOptions extends CommonOptions {
  yes?: boolean;
  dryRun?: boolean;
}

/** The deletes at the REST rate: 'auto' starts where the run's REST limiter does. */
function undoDuration(prepared: PreparedUndo, config: MigrateConfig): string {
  const { restRequestsPerMinute } = config;
  const rate = restRequestsPerMinute === 'auto' ? DEFAULT_REST_REQUESTS_PER_MINUTE : restRequestsPerMinute;
  const minutes = prepared.plan.steps.length / rate;
  const rateWords = `${rate} requests a minute (restRequestsPerMinute)`;
  return `about ${formatDuration(minutes * 60_000)} at ${rateWords}`;
}

function describe(prepared: PreparedUndo, config: MigrateConfig): string {
  const { counts, withoutServiceId } = prepared.plan;
  const host = new URL(config.baseUrl).host;
  const lines = [
    `Undo of the migration into app ${config.appId ?? '(no appId)'} at ${host}`,
    `  will delete ${plural(counts.messages, 'message')} (permanently), ${plural(counts.members, 'member')}, ` +
      `${plural(counts.groups, 'group')} and ${plural(counts.users, 'user')} (permanently)`,
    '  created by this migration only: records that were already there and mapped users are kept',
    `  ${plural(prepared.plan.steps.length, 'delete request')}: ${undoDuration(prepared, config)}`,
  ];
  if (withoutServiceId.length > 0) {
    const which = plural(withoutServiceId.length, 'message');
    lines.push(`  and ${which} it has no service id for: looked up by muid in the service's message list first`);
  }
  const { existing } = prepared.logged;
  if (existing > 0) lines.push(`  keeps ${keptWords({ existing, unfound: 0 })}: they were there before`);
  return `${lines.join('\n')}\n`;
}

export async function undoAction(ctx: CommandContext, opts: UndoOptions): Promise<number> {
  const { config, warnings } = await loadCommandConfig(ctx, opts, !opts.dryRun);
  ctx.warn(warnings);
  const { prepareUndo, undoInRun, undoEnd } = await import('../pipeline/undo/undo-in-run.js');
  const prepared = await prepareUndo(config);
  const host = new URL(config.baseUrl).host;
  const out = opts.json ? ctx.stderr : ctx.stdout;
  out.write(ctx.redact(describe(prepared, config)));
  const { counts, withoutServiceId } = prepared.plan;
  if (opts.dryRun) {
    const estimate = undoDuration(prepared, config);
    const requests = prepared.plan.steps.length;
    const kept = { existing: prepared.logged.existing };
    const doc = {
      dryRun: true,
      appId: config.appId,
      host,
      counts,
      lookUp: withoutServiceId.length,
      kept,
      requests,
      estimate,
    };
    if (opts.json) ctx.stdout.write(`${JSON.stringify(doc)}\n`);
    return ExitCode.ok;
  }
  if (!opts.yes) {
    throw new ConfigError('UNDO_NEEDS_YES', 'undo deletes records from the target: nothing was deleted', {
      exitCode: ExitCode.usage,
      hint: 'check the counts above, then run `chat-migrate undo --yes` (or --dry-run to only look)',
    });
  }
  const { UNDO_TERMS } = await import('../report/figures.js');
  const spec: CommandRunSpec = {
    command: 'undo',
    config,
    ledger: 'existing',
    json: opts.json,
    terms: UNDO_TERMS,
    stoppingNotice: 'stopping: saving the undo progress',
    stepSummary: true,
  };
  const outcome = await runInCommand(ctx, spec, (run) => undoInRun(run, prepared), undoEnd);
  const { state, setAside, kept } = outcome;
  const refused = state.refused.length;
  if (opts.json) ctx.stdout.write(ctx.redact(`${JSON.stringify({ ...state, kept, setAside })}\n`));
  else {
    const d = state.deleted;
    const lines = [
      `Deleted ${plural(d.messages, 'message')}, ${plural(d.members, 'member')}, ${plural(d.groups, 'group')}, ` +
        `${plural(d.users, 'user')}${state.notFound > 0 ? ` (${state.notFound} were gone already)` : ''}`,
      ...(kept.existing + kept.unfound > 0 ? [`  kept: ${keptWords(kept)}`] : []),
      ...state.refused.map((r) => `  refused: ${r.label} [${r.code}]`),
      refused > 0
        ? '  the checkpoint is kept: run undo again once the refusals are dealt with'
        : `  set aside (the next import starts over): ${setAside.join(', ') || 'nothing'}`,
    ];
    ctx.stdout.write(ctx.redact(`${lines.join('\n')}\n`));
  }
  return refused > 0 ? ExitCode.rejected : ExitCode.ok;
}
