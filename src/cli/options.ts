import { type Command, Option } from 'commander';
import { requestsPerMinute, wholeNumber } from './arg-parsers.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { registerSecret } from './run-command.js';

/** Options every command that reads the config shares. */
export interface CommonOptions {
  config?: string;
  appId?: string;
  region?: string;
  apiKey?: string;
  baseUrl?: string;
  checkpoint?: string;
  rejects?: string;
  batchSize?: number;
  concurrency?: number;
  requestsPerMinute?: number | 'auto';
  retries?: number;
  timeoutMs?: number;
  checkpointIntervalMs?: number;
  importSoftDeleted?: boolean;
  preset?: string;
  from?: string;
  systemUser?: string;
  skipBots?: boolean;
  includeJoinLeave?: boolean;
  mediaBaseUrl?: string;
  json?: boolean;
}

const int = wholeNumber(0);

export function addConfigOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'config file (default: .migrate.config.json or another cosmiconfig "migrate" file in the working directory)')
    .option('--app-id <id>', 'app id (env MIGRATE_APP_ID)')
    .option('--region <region>', 'region: us, eu, in (env MIGRATE_REGION)')
    .addOption(new Option('--api-key <key>', 'API key; prefer env MIGRATE_API_KEY, flags show in the process list').hideHelp(false))
    .option('--base-url <url>', 'service base URL (env MIGRATE_BASE_URL); default https://<appId>.api-<region>.cometchat.io')
    .option('--checkpoint <file>', 'checkpoint file (default .migrate-checkpoint.json)')
    .option('--rejects <file>', 'rejects file, NDJSON (default migrate-rejects.ndjson)')
    .option('--batch-size <n>', 'records per request, at most 50', int)
    .option('--concurrency <n>', 'requests in flight', int)
    .option('--requests-per-minute <n>', 'client-side rate limit, or "auto"', requestsPerMinute)
    .option('--retries <n>', 'retries per request', int)
    .option('--timeout-ms <n>', 'request timeout', int)
    .option('--checkpoint-interval-ms <n>', 'shortest time between checkpoint writes (default 200; 0: after every batch)', int)
    .option('--import-soft-deleted', 'import soft-deleted messages (deletion time kept in data.metadata.deletedAt)')
    .option('--preset <name>', 'read an export as its system wrote it: sendbird, stream, slack, discord, telegram')
    .option('--from <path>', 'the export folder, .zip or file for --preset')
    .option('--system-user <uid>', 'preset: the user that sends system/admin messages (default "system")')
    .option('--skip-bots', 'preset: skip bot users and bot messages (counted as skipped)')
    .option('--include-join-leave', 'preset: import join/leave events as messages (default: skipped, counted)')
    .option('--media-base-url <url>', 'preset: where the export\'s media files were uploaded, for attachment URLs')
    .option('--json', 'print the result as one JSON object on stdout');
}

const FLAG_KEYS = [
  'appId', 'region', 'apiKey', 'baseUrl', 'checkpoint', 'rejects', 'batchSize', 'concurrency',
  'requestsPerMinute', 'retries', 'timeoutMs', 'checkpointIntervalMs', 'importSoftDeleted', 'preset', 'from',
  'systemUser', 'includeJoinLeave', 'mediaBaseUrl',
] as const;

/** Loads the merged config for a command's options. */
export async function loadCommandConfig(opts: CommonOptions, requireApiKey: boolean): Promise<LoadedConfig> {
  const flags: Record<string, unknown> = {};
  for (const key of FLAG_KEYS) if (opts[key] !== undefined) flags[key] = opts[key];
  // commander gives a --no-x flag a default of true, which would beat the config file: a plain flag instead.
  if (opts.skipBots) flags.includeBots = false;
  registerSecret(opts.apiKey);
  registerSecret(process.env.MIGRATE_API_KEY);
  const loaded = await loadConfig({ cwd: process.cwd(), configFile: opts.config, env: process.env, flags, requireApiKey });
  registerSecret(loaded.config.apiKey);
  return loaded;
}
