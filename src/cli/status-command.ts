import { readCheckpoint } from '../checkpoint/store.js';
import { ExitCode } from '../errors.js';
import { formatStatus } from '../report/status-report.js';
import type { CommandContext } from './context.js';
import { loadCommandConfig, type CommonOptions } from './options.js';

export async function statusAction(ctx: CommandContext, opts: CommonOptions): Promise<number> {
  const { config } = await loadCommandConfig(ctx, opts, false).catch(async (err) => {
    // status must work from a bare --checkpoint too, with no target configured.
    if (opts.checkpoint) return { config: { checkpoint: opts.checkpoint } as { checkpoint: string } };
    throw err;
  });
  const data = await readCheckpoint(config.checkpoint);
  ctx.stdout.write(formatStatus(config.checkpoint, data, Boolean(opts.json)));
  return ExitCode.ok;
}
