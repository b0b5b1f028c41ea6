import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { registerCommands } from './commands.js';
import { type CliIo, CommandContext } from './context.js';
import { printJsonError } from './fatal-error.js';

export type { CliIo } from './context.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** Whether --json was given: the command line could not be parsed, so its words are looked at as they are. */
function wantsJson(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** commander's `commander.invalidArgument` as `USAGE_INVALID_ARGUMENT`. */
const usageCode = (code: string) =>
  `USAGE_${code
    .replace(/^commander\./, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;

/**
 * Runs one command line (`args` without node and the script) in `io` and resolves with its exit code.
 * Nothing outlives the call: the commander program, the secrets and the signal listeners are its own.
 */
export async function main(args: readonly string[], io: CliIo): Promise<number> {
  const noColor = args.includes('--no-color');
  const ctx = new CommandContext(noColor ? { ...io, env: { ...io.env, NO_COLOR: '1' } } : io);
  const program = new Command()
    .name('chat-migrate')
    .description("move a legacy chat system's history into the chat service's v3.0/data_import API, resumably")
    .version(pkg.version)
    .option('--no-color', 'no colours in the output (as NO_COLOR=1 does)')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(run chat-migrate --help for usage)')
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      getOutHelpWidth: () => ctx.stdout.columns ?? ctx.columns ?? 80,
      getErrHelpWidth: () => ctx.columns ?? 80,
    })
    .exitOverride();
  if (io.onCommand) program.hook('preAction', (_program, action) => io.onCommand?.(action.name()));
  const outcome = { exitCode: ExitCode.ok as number };
  registerCommands(program, ctx, outcome);
  for (const cmd of program.commands) cmd.exitOverride();
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Help and --version are not errors; everything else commander throws is a usage error.
    if (err.exitCode === 0) return ExitCode.ok;
    // commander has printed the error on stderr; a --json run still answers with one document on stdout.
    if (wantsJson([...args])) {
      const message = err.message.replace(/^error: /, '').replaceAll('\n', ' ');
      printJsonError(ctx, { code: usageCode(err.code), message, exitCode: ExitCode.usage });
    }
    return ExitCode.usage;
  }
  return outcome.exitCode;
}
