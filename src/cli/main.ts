import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { registerCommands } from './commands.js';
import { printJsonError } from './run-command.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command()
  .name('chat-migrate')
  .description("move a legacy chat system's history into the chat service's v3.0/data_import API, resumably")
  .version(pkg.version)
  .option('--no-color', 'no colours in the output (as NO_COLOR=1 does)')
  .configureHelp({ showGlobalOptions: true })
  .showHelpAfterError('(run chat-migrate --help for usage)')
  .exitOverride();

registerCommands(program);
for (const cmd of program.commands) cmd.exitOverride();
// The memory budget is import's and validate's; the sandbox stands in for a remote service, and a
// heap held small would only spend its CPU on GC that the tool it serves then waits for.
program.hook('preAction', async (_program, action) => {
  if (action.name() !== 'sandbox') (await import('./heap-budget.js')).keepHeapSmall();
  // One switch that every part reads, the UI packages included (no-color.org: any non-empty value).
  if (program.opts().color === false) process.env.NO_COLOR = '1';
});

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

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and --version are not errors; everything else commander throws is a usage error.
    process.exitCode = err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    // commander has printed the error on stderr; a --json run still answers with one document on stdout.
    if (err.exitCode !== 0 && wantsJson(process.argv.slice(2))) {
      const message = err.message.replace(/^error: /, '').replaceAll('\n', ' ');
      printJsonError({ code: usageCode(err.code), message, exitCode: ExitCode.usage });
    }
  } else {
    throw err;
  }
}
