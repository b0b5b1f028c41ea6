import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EntityName } from '../entities/types.js';
import { ConfigError, ExitCode } from '../errors.js';
import { inspectExport, type InitProposal } from '../pipeline/init/inspect-export.js';
import { formatInitReport } from '../report/init-report.js';
import { CONFIG_FILE } from './options.js';
import type { CommandContext } from './context.js';
import { DEFAULTS } from '../config/keys.js';
import { censusText, takeInitCensus } from './init-census.js';

interface InitOptions {
  force?: boolean;
  print?: boolean;
  pick: Record<string, string>;
  entity: Record<string, EntityName>;
  appId?: string;
  region?: string;
  baseUrl?: string;
  config?: string;
}

export async function initAction(ctx: CommandContext, target: string, opts: InitOptions): Promise<number> {
  const configFile = ctx.resolve(opts.config ?? CONFIG_FILE);
  const proposal = await inspectExport({
    target: ctx.resolve(target),
    configDir: path.dirname(configFile),
    picks: opts.pick ?? {},
    entities: opts.entity ?? {},
  });
  // Said in one write at the end: output piped into `head` then ends cleanly, not mid-report.
  const out = [formatInitReport(proposal)];
  try {
    return await settle(ctx, proposal, configFile, opts, out);
  } finally {
    ctx.stdout.write(out.join(''));
  }
}

async function settle(
  ctx: CommandContext,
  proposal: InitProposal,
  configFile: string,
  opts: InitOptions,
  out: string[],
): Promise<number> {
  if (proposal.kind === 'nothing') return ExitCode.rejected;
  const config = {
    ...(opts.appId === undefined ? {} : { appId: opts.appId }),
    ...(opts.region === undefined ? {} : { region: opts.region }),
    ...(opts.baseUrl === undefined ? {} : { baseUrl: opts.baseUrl }),
    ...proposal.config,
  };
  const shown = ctx.shown(configFile);
  const problems = proposal.kind === 'plain' ? proposal.problems : [];
  if (problems.length > 0) {
    out.push(`\nThe config would be:\n${JSON.stringify(config, null, 2)}\n`);
    out.push(`\nNot written: ${problems.length === 1 ? 'one choice is' : 'choices are'} yours first:\n`);
    for (const p of problems) out.push(`  ${p}\n`);
    return ExitCode.rejected;
  }
  if (proposal.kind === 'plain' && Object.keys(proposal.config.sources).length === 0) {
    out.push('\nNot written: no file of it holds users, groups, members or messages.\n');
    return ExitCode.rejected;
  }
  const census = await takeInitCensus(config, path.dirname(configFile));
  out.push(`\n${censusText(census)}`);
  if (census.recordsRead === 0) {
    out.push('\nNot written: the export holds no record to import.\n');
    return ExitCode.rejected;
  }
  // The window is a decision: written down, and said, whenever it leaves messages out.
  const settled = census.beyondRetention > 0 ? { ...config, retentionDays: DEFAULTS.retentionDays } : config;
  const text = `${JSON.stringify(settled, null, 2)}\n`;
  if (opts.print) {
    out.push(`\n${text}`);
    return ExitCode.ok;
  }
  try {
    // 'wx': an existing config (maybe hand-edited, maybe holding other settings) is never replaced unasked.
    await writeFile(configFile, text, { flag: opts.force ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ConfigError('CONFIG_EXISTS', `${shown} exists: not overwritten`, {
        hint: 'run init with --force to replace it, or --print to see the new config',
      });
    throw new ConfigError('CONFIG_WRITE', `cannot write ${shown}: ${(error as Error).message}`, { cause: error });
  }
  out.push(`\nWrote ${shown}:\n${text}\n${nextSteps(config)}`);
  return ExitCode.ok;
}

function nextSteps(config: Record<string, unknown>): string {
  const lines = ['Next:', '  export MIGRATE_API_KEY=...   # the REST API key: in the environment, never in the file'];
  if (config.baseUrl === undefined && (config.appId === undefined || config.region === undefined))
    lines.push('  add "appId" and "region" to the config (or pass --app-id and --region to import)');
  lines.push('  chat-migrate validate      # every record the service would refuse, offline');
  lines.push('  chat-migrate import');
  return `${lines.join('\n')}\n`;
}
