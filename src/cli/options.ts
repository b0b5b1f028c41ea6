import type { CommandContext } from './context.js';
import { type Command, Option } from 'commander';
import { configFlagParser } from './arg-parsers.js';
import {
  CONFIG_KEY_NAMES,
  shownDefaultOf,
  specOf,
  type CommandName,
  type ConfigKey,
  type KeySpec,
  type KeyTable,
  type ValueOf,
} from '../config/keys.js';
import type { LoadedConfig } from '../config/load.js';

/** The config file a command reads by default, and the one init writes. */
export const CONFIG_FILE = '.migrate.config.json';

type FlagKey = { [K in ConfigKey]: KeyTable[K] extends { flag: string } ? K : never }[ConfigKey];
/** commander's name for a flag's value: `--batch-size <n>` -> `batchSize`. */
type LongName<F> = F extends `--${infer N} <${string}>` ? N : F extends `--${infer N}` ? N : never;
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type FlagValue<K extends ConfigKey> = KeyTable[K]['kind'] extends 'bool' ? boolean : ValueOf<K>;

/** Options every command that reads the config shares: a flag per key of the table, and these two. */
export type CommonOptions = { config?: string; json?: boolean } & {
  [K in FlagKey as Camel<LongName<KeyTable[K]['flag']>>]?: FlagValue<K>;
};

/** The config keys that have a flag, with the name commander gives the flag's value. */
export const FLAG_KEYS: readonly { key: ConfigKey; attribute: string }[] = CONFIG_KEY_NAMES.flatMap((key) => {
  const { flag } = specOf(key);
  return flag === undefined ? [] : [{ key, attribute: new Option(flag).attributeName() }];
});

/** A key's flag; no commander default, which would beat the config file and the environment. */
function configOption(spec: KeySpec & { flag: string }): Option {
  let help = spec.flagHelp ?? spec.help;
  if (spec.env) help += spec.secret ? `; prefer env ${spec.env}: flags show in the process list` : ` (env ${spec.env})`;
  const shown = spec.kind === 'bool' ? undefined : shownDefaultOf(spec);
  if (shown !== undefined) help += ` (default ${shown})`;
  const option = new Option(spec.flag, help);
  const parse = configFlagParser(spec);
  return parse ? option.argParser(parse) : option;
}

/**
 * Adds `--config`, `--json` and the flags of the config keys `command` uses (the entries in
 * config/keys.ts that name it), so each command's --help lists what it reads. A new command that reads
 * the config: its name in COMMAND_NAMES and in the entries of the keys it uses, then
 * `addConfigOptions(program.command('x'), 'x')`. The config file may still hold every key.
 */
export function addConfigOptions(cmd: Command, command: CommandName): Command {
  cmd.option(
    '-c, --config <file>',
    'config file (default: .migrate.config.json or another cosmiconfig "migrate" file in the working directory)',
  );
  for (const { key } of FLAG_KEYS) {
    const spec = specOf(key) as KeySpec & { flag: string };
    if (spec.commands.includes(command)) cmd.addOption(configOption(spec));
  }
  return cmd.option('--json', 'print the result as one JSON object on stdout');
}

/** The flags layer of the config: the keys whose flag was given. */
export function configFlags(opts: CommonOptions): Record<string, unknown> {
  const given = opts as Record<string, unknown>;
  const flags: Record<string, unknown> = {};
  for (const { key, attribute } of FLAG_KEYS) {
    if (given[attribute] === undefined) continue;
    const spec = specOf(key);
    // A bool's flag is a plain switch: commander's --no-x would default to true and beat the config file.
    flags[key] = spec.kind === 'bool' ? (spec.flagSets ?? true) : given[attribute];
  }
  return flags;
}

const SECRET_KEYS = CONFIG_KEY_NAMES.filter((key) => specOf(key).secret);

/** Loads the merged config for a command's options; secrets are registered to be redacted wherever they came from. */
export async function loadCommandConfig(
  ctx: CommandContext,
  opts: CommonOptions,
  requireApiKey: boolean,
  readsExport = false,
): Promise<LoadedConfig> {
  const flags = configFlags(opts);
  for (const key of SECRET_KEYS) {
    const env = specOf(key).env;
    ctx.registerSecret(flags[key] as string | undefined);
    ctx.registerSecret(env === undefined ? undefined : ctx.env[env]);
  }
  // The loader (cosmiconfig, the schema's checks) is read by the commands that load a config, when they do.
  const [{ loadConfig }, { proxySecrets }] = await Promise.all([
    import('../config/load.js'),
    import('../http/proxy-env.js'),
  ]);
  // A proxy URL's password reaches undici only; an error that echoed it would still be redacted.
  for (const secret of proxySecrets(ctx.env)) ctx.registerSecret(secret);
  const { config: configFile } = opts;
  const loaded = await loadConfig({
    cwd: ctx.cwd,
    configFile,
    env: ctx.env,
    flags,
    requireApiKey,
    readsExport,
  });
  for (const key of SECRET_KEYS) ctx.registerSecret(loaded.config[key] as string | undefined);
  // media: the hosts' header values and the AWS chain's keys reach undici and the SDK only.
  for (const auth of Object.values(loaded.config.media?.hosts ?? {})) {
    if (auth.valueEnv) ctx.registerSecret(ctx.env[auth.valueEnv]);
    if (auth.basic === undefined) continue;
    const [user, password] = [ctx.env[auth.basic.userEnv], ctx.env[auth.basic.passwordEnv]];
    ctx.registerSecret(password);
    if (user && password) ctx.registerSecret(Buffer.from(`${user}:${password}`).toString('base64'));
  }
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'])
    ctx.registerSecret(ctx.env[name]);
  return loaded;
}
