import { ConfigError, ExitCode } from '../errors.js';
import type { PreparedUndo } from '../pipeline/undo/undo-session.js';
import { plural } from '../report/words.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { redact } from './run-command.js';
import { installStopSignals } from './signals.js';

interface UndoOptions extends CommonOptions {
  yes?: boolean;
  dryRun?: boolean;
}

function describe(prepared: PreparedUndo, host: string, appId: string | undefined): string {
  const { counts, withoutServiceId } = prepared.plan;
  const lines = [
    `Undo of the migration into app ${appId ?? '(no appId)'} at ${host}`,
    `  will delete ${plural(counts.messages, 'message')} (permanently), ${plural(counts.members, 'member')}, ` +
      `${plural(counts.groups, 'group')} and ${plural(counts.users, 'user')} (permanently)`,
    '  created by this migration only: records that were already there and mapped users are kept',
  ];
  if (withoutServiceId.length > 0)
    lines.push(`  ${plural(withoutServiceId.length, 'message')} without the service's id cannot be deleted`);
  return `${lines.join('\n')}\n`;
}

export async function undoAction(opts: UndoOptions): Promise<number> {
  const { config, warnings } = await loadCommandConfig(opts, !opts.dryRun);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const { prepareUndo, runUndoSession } = await import('../pipeline/undo/undo-session.js');
  const prepared = await prepareUndo(config);
  const host = new URL(config.baseUrl).host;
  const out = opts.json ? process.stderr : process.stdout;
  out.write(redact(describe(prepared, host, config.appId)));
  const { counts } = prepared.plan;
  if (opts.dryRun) {
    if (opts.json) process.stdout.write(`${JSON.stringify({ dryRun: true, appId: config.appId, host, counts })}\n`);
    return ExitCode.ok;
  }
  if (!opts.yes) {
    throw new ConfigError('UNDO_NEEDS_YES', 'undo deletes records from the target: nothing was deleted', {
      exitCode: ExitCode.usage,
      hint: 'check the counts above, then run `chat-migrate undo --yes` (or --dry-run to only look)',
    });
  }
  const signals = installStopSignals(() => process.stderr.write('stopping: saving the undo progress\n'));
  try {
    const outcome = await runUndoSession({
      config,
      prepared,
      stop: signals.stop,
      hardStop: signals.hardStop,
      progress: (s) => {
        if (opts.json) return;
        process.stderr.write(`undo: ${s.done}/${s.total} deletes answered\n`);
      },
      onRetry: (reason, attempt, delayMs) =>
        process.stderr.write(`undo: ${reason}; trying again (${attempt}) in ${Math.round(delayMs / 100) / 10} s\n`),
    });
    const { state, setAside } = outcome;
    const refused = state.refused.length;
    if (opts.json) process.stdout.write(redact(`${JSON.stringify({ ...state, setAside })}\n`));
    else {
      const d = state.deleted;
      const lines = [
        `Deleted ${plural(d.messages, 'message')}, ${plural(d.members, 'member')}, ${plural(d.groups, 'group')}, ` +
          `${plural(d.users, 'user')}${state.notFound > 0 ? ` (${state.notFound} were gone already)` : ''}`,
        ...state.refused.map((r) => `  refused: ${r.label} [${r.code}]`),
        refused > 0
          ? '  the checkpoint is kept: run undo again once the refusals are dealt with'
          : `  set aside (the next import starts over): ${setAside.join(', ') || 'nothing'}`,
      ];
      process.stdout.write(redact(`${lines.join('\n')}\n`));
    }
    return refused > 0 ? ExitCode.rejected : ExitCode.ok;
  } finally {
    signals.dispose();
  }
}
