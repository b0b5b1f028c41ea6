import { readCheckpoint } from '../checkpoint/store.js';
import { ENTITIES } from '../entities/index.js';
import { CheckpointError, ConfigError, ExitCode } from '../errors.js';
import { checkReplayDry } from '../pipeline/import/replay-dry.js';
import { retentionCutoff } from '../pipeline/retention.js';
import {
  groupLeftOpen,
  openSlotsOf,
  readRejectsForReplay,
  type LeftOpen,
  type OpenSlot,
} from '../pipeline/import/replay-rejects.js';
import { plural } from '../report/words.js';
import { printSummary } from './import-command.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import { planRun } from './plan-run.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';
import type { CommandContext } from './context.js';

interface ReplayOptions extends CommonOptions {
  dryRun?: boolean;
  withoutMissingFiles?: boolean;
  reason?: string;
}

const STOPPING_NOTICE =
  'stopping: finishing the batches in flight, then saving the checkpoint.\n  Press Ctrl+C again to stop at once.';

export async function replayAction(
  ctx: CommandContext,
  file: string | undefined,
  opts: ReplayOptions,
): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(ctx, opts, !opts.dryRun, true);
  ctx.warn(warnings);
  if (file !== undefined) config.rejects = ctx.resolve(file);
  if (opts.reason !== undefined && !opts.withoutMissingFiles) {
    throw new ConfigError('REPLAY_REASON_ALONE', '--reason goes with --without-missing-files: nothing was sent', {
      exitCode: ExitCode.usage,
      hint: 'run `chat-migrate replay --without-missing-files --reason "..."`',
    });
  }
  const before = await readCheckpoint(config.checkpoint);
  if (!before) {
    throw new CheckpointError('REPLAY_NO_CHECKPOINT', `no checkpoint at ${config.checkpoint}: nothing to replay`, {
      hint: 'replay sends again what an import rejected: run `chat-migrate import` first',
    });
  }
  const openBefore = openSlotsOf(before);
  const rejects = await readRejectsForReplay(config.rejects, openBefore, ctx.cwd);
  const plan = await planRun(config, baseDir, { writeIdMap: !opts.dryRun });
  ctx.warn(plan.warnings);
  const nowSec = Math.floor(Date.now() / 1000);
  if (opts.dryRun) {
    const openKeys = new Set(openBefore.map((s) => `${s.entity} ${s.file} ${s.ordinal}`));
    // The replay skips what the import skips: messages beyond the retention window are not sent.
    const retentionCutoffSec = retentionCutoff(nowSec, config.retentionDays);
    const run = { importSoftDeleted: config.importSoftDeleted, nowSec, retentionCutoffSec };
    const results = await checkReplayDry(
      plan.plans,
      rejects,
      (i) => openKeys.has(`${i.entity} ${i.file} ${i.ordinal}`),
      run,
    );
    const failing = results.filter((r) => r.problem !== undefined);
    const skipped = results.filter((r) => r.skipped !== undefined).length;
    const wouldSend = results.length - failing.length - skipped;
    const doc = { dryRun: true, open: openBefore.length, wouldSend, skipped, failing };
    if (opts.json) ctx.stdout.write(ctx.redact(`${JSON.stringify(doc)}\n`));
    else {
      const out = [
        `Replay, dry run (nothing sent): ${plural(openBefore.length, 'record')} open, ` +
          `${doc.wouldSend} would be sent, ${failing.length} still failing their checks` +
          (skipped > 0 ? `, ${skipped} skipped as the import skips them` : '') +
          (rejects.deleted.length > 0 ? `, ${rejects.deleted.length} deleted from the rejects file` : ''),
        ...failing.map(
          ({ item, id, problem: p }) =>
            `  ${item.file}:${item.line}: ${ENTITIES[item.entity].singular} ${id}: ${p!.message} [${p!.rule}]`,
        ),
      ];
      ctx.stdout.write(ctx.redact(`${out.join('\n')}\n`));
    }
    return failing.length > 0 ? ExitCode.rejected : ExitCode.ok;
  }
  let sent = 0;
  try {
    const { importInRun, importEnd } = await import('../pipeline/import/import-in-run.js');
    const spec: CommandRunSpec = {
      command: 'replay',
      config,
      ledger: 'write',
      sourcesIdentity: plan.sourcesIdentity,
      idRule: plan.idRule,
      json: opts.json,
      stoppingNotice: STOPPING_NOTICE,
      stepSummary: true,
    };
    const summary = await runInCommand(
      ctx,
      spec,
      (run) =>
        importInRun(run, {
          plans: plan.plans,
          idMap: plan.idMap,
          fresh: false,
          replay: { ...rejects, sent: () => sent++ },
          withoutMissing: opts.withoutMissingFiles ? { reason: opts.reason } : undefined,
        }),
      importEnd,
    );
    const ledger = await readCheckpoint(config.checkpoint);
    const after = openSlotsOf(ledger);
    const withoutFiles = (ledger?.totals.messages?.withoutFiles ?? 0) - (before.totals.messages?.withoutFiles ?? 0);
    const replay = { ...replayOutcome(openBefore, rejects.deleted, after, sent), withoutFiles };
    if (opts.json) await printSummary(ctx, { ...summary, replay } as typeof summary, true);
    else {
      await printSummary(ctx, summary, false);
      ctx.stdout.write(formatReplay(replay, config.rejects));
    }
    return summary.exitCode;
  } finally {
    await plan.idMap?.discard();
  }
}

interface ReplayOutcome extends LeftOpen {
  openBefore: number;
  sent: number;
  gotIn: number;
  dropped: number;
  stillOpen: number;
}

function replayOutcome(before: OpenSlot[], deleted: OpenSlot[], after: OpenSlot[], sent: number): ReplayOutcome {
  const key = (s: OpenSlot) => `${s.entity}\u0000${s.file}\u0000${s.ordinal}`;
  const openNow = new Set(after.map(key));
  const deletedKeys = new Set(deleted.map(key));
  const closed = before.filter((s) => !openNow.has(key(s)));
  const dropped = closed.filter((s) => deletedKeys.has(key(s))).length;
  const left = groupLeftOpen(after);
  return { openBefore: before.length, sent, gotIn: closed.length - dropped, dropped, stillOpen: after.length, ...left };
}

function formatReplay(r: ReplayOutcome & { withoutFiles: number }, rejectsPath: string): string {
  const codes = (byCode: Record<string, number>) =>
    Object.entries(byCode)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ');
  const lines = [
    '',
    `Replay: ${plural(r.openBefore, 'record')} open before, ${r.sent} sent, ${r.gotIn} got in, ` +
      `${r.dropped} dropped (deleted from the rejects file), ${r.stillOpen} still open`,
  ];
  if (r.withoutFiles > 0)
    lines.push(`  ${plural(r.withoutFiles, 'message')} went in without their missing files (data.metadata.notCarried)`);
  if (r.fixTheData.count > 0) lines.push(`  fix the data:   ${r.fixTheData.count} (${codes(r.fixTheData.byCode)})`);
  if (r.worthRetrying.count > 0)
    lines.push(`  worth retrying: ${r.worthRetrying.count} (${codes(r.worthRetrying.byCode)})`);
  if (r.stillOpen > 0) lines.push(`  edit them in ${rejectsPath} (or the export) and run replay again`);
  return `${lines.join('\n')}\n`;
}
