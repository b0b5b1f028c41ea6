import { findIdLines } from '../checkpoint/find-ids.js';
import { idLogPathOf, idMapPathOf } from '../checkpoint/state-files.js';
import type { IdRule } from '../config/keys.js';
import { ExitCode } from '../errors.js';
import { messageIdOf, serviceIdOf } from '../systems/shared/ids.js';
import { loadCommandConfig, type CommonOptions } from './options.js';
import type { CommandContext } from './context.js';

export async function findAction(ctx: CommandContext, id: string, opts: CommonOptions): Promise<number> {
  const { config } = await loadCommandConfig(ctx, opts, false).catch(async (err) => {
    // Like status: a bare --checkpoint is enough, no target needed.
    if (opts.checkpoint) return { config: { checkpoint: opts.checkpoint } as { checkpoint: string } };
    throw err;
  });
  const found = await findIdLines(config.checkpoint, id);
  if (opts.json) {
    const doc = { id, files: [idMapPathOf(config.checkpoint), idLogPathOf(config.checkpoint)], lines: found };
    ctx.stdout.write(`${JSON.stringify(doc)}\n`);
  } else if (found.length === 0) {
    ctx.stderr.write(`nothing about ${id} in ${idMapPathOf(config.checkpoint)} or ${idLogPathOf(config.checkpoint)}\n`);
  } else {
    // As grep -n prints: file, line, the line itself.
    for (const f of found) ctx.stdout.write(`${f.file}:${f.line}: ${JSON.stringify(f.entry)}\n`);
  }
  return found.length > 0 ? ExitCode.ok : ExitCode.fatal;
}

/**
 * `ids of`: the service id of each export id, one a line in order (a script can zip them), under the
 * config's idRule. The same functions as the presets, so what it prints is what an import sends.
 */
export async function ofAction(
  ctx: CommandContext,
  sourceIds: string[],
  opts: CommonOptions & { kind: 'user' | 'group' | 'message' },
): Promise<number> {
  const { config } = await loadCommandConfig(ctx, opts, false);
  const rule = config.idRule as IdRule;
  const idOf = (sourceId: string) =>
    opts.kind === 'message' ? messageIdOf(rule, sourceId) : serviceIdOf(rule, sourceId);
  if (opts.json) {
    const ids = sourceIds.map((sourceId) => ({ sourceId, id: idOf(sourceId) }));
    ctx.stdout.write(`${JSON.stringify({ kind: opts.kind, idRule: rule, ids })}\n`);
  } else ctx.stdout.write(sourceIds.map((s) => `${idOf(s)}\n`).join(''));
  return ExitCode.ok;
}
