import { readCheckpoint } from '../checkpoint/store.js';
import { ExitCode } from '../errors.js';
import { formatStatus } from '../report/status-report.js';
import { loadCommandConfig, type CommonOptions } from './options.js';

export async function statusAction(opts: CommonOptions): Promise<number> {
  const { config } = await loadCommandConfig(opts, false).catch(async (err) => {
    // status must work from a bare --checkpoint too, with no target configured.
    if (opts.checkpoint) return { config: { checkpoint: opts.checkpoint } as { checkpoint: string } };
    throw err;
  });
  const data = await readCheckpoint(config.checkpoint);
  process.stdout.write(formatStatus(config.checkpoint, data, Boolean(opts.json)));
  return ExitCode.ok;
}
