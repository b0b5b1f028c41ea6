/**
 * Every command's name, arguments, description and options: what `--help` shows and commander parses.
 * Light on purpose (commander, the config table and the flag parsers): a command's own module, and the
 * pipeline it imports, loads only when that command runs, so `--version`, `--help` and each command
 * start without reading the others (test/process/startup.e2e.test.mjs).
 *
 * The contract with the command files (`<name>-command.ts`): each exports its action, named here, which
 * takes what commander passes an action (positional arguments, then the options object, then the
 * command) and resolves to the exit code. `runCommand` wraps it as before: errors become messages and
 * exit codes there.
 */
import { type Command, Option } from 'commander';
import { ENTITY_ORDER } from '../entities/types.js';
import { SANDBOX_DEFAULT_API_KEY } from '../sandbox/default-key.js';
import {
  entityList,
  entityName,
  oneOf,
  pairs,
  probability,
  rateHeaderStyle,
  reportFormat,
  responseStyle,
  sinceOrAuto,
  sinceTime,
  wholeNumber,
} from './arg-parsers.js';
import { KNOWN_REGIONS } from '../config/keys.js';
import { SOURCE_NAMES } from '../systems/registry.js';
import { addConfigOptions, CONFIG_FILE } from './options.js';
import { runCommand } from './fatal-error.js';
import type { CommandContext } from './context.js';

type Action = (ctx: CommandContext, ...args: never[]) => Promise<number>;
type Rest<F> = F extends (ctx: CommandContext, ...args: infer A) => Promise<number> ? A : never;

/** Binds the context of one command line to the command actions it registers. */
function actions(ctx: CommandContext, outcome: { exitCode: number }) {
  /** `name` of the module `load` imports, called when the command runs; the module is not read before. */
  return function later<K extends string, M extends { [P in K]: Action }>(
    load: () => Promise<M>,
    name: K,
  ): (...args: Rest<M[K]>) => Promise<void> {
    return runCommand(ctx, outcome, async (...args: Rest<M[K]>) => (await load())[name](ctx, ...args));
  };
}

const nonNegative = wholeNumber(0);

export function registerCommands(program: Command, ctx: CommandContext, outcome: { exitCode: number }): void {
  const later = actions(ctx, outcome);
  addConfigOptions(program.command('import'), 'import')
    .description('import users, groups, members and messages; resumes from the checkpoint')
    .option('--fresh', 'ignore the checkpoint and start over')
    .option('--strict', 'refuse to start while validate finds errors')
    .option('--dry-run', 'validate only: read, map and check everything, send nothing')
    .option('--since <time>', 'import only messages sent at or after this time (ISO-8601 or UNIX seconds)', sinceTime)
    .action(later(() => import('./import-command.js'), 'importAction'));

  addConfigOptions(program.command('validate'), 'validate')
    .description('dry run, offline: find every record the service would refuse, located to file and line')
    .option('--max-errors <n>', 'stop after N errors', wholeNumber(1))
    .option('--since <time>', 'check only messages sent at or after this time', sinceTime)
    .action(later(() => import('./validate-command.js'), 'validateAction'));

  addConfigOptions(program.command('status'), 'status')
    .description("show the checkpoint's progress per entity and file")
    .action(later(() => import('./status-command.js'), 'statusAction'));

  registerSandboxCommand(program, later);

  addConfigOptions(program.command('pull'), 'pull')
    .argument('<source>', `the live source: ${SOURCE_NAMES.join(', ')}`, oneOf(SOURCE_NAMES, 'The source'))
    .description('read a live source over its API into an export its preset imports; resumes where it stopped')
    .requiredOption('--out <dir>', 'the folder to write into: one folder per pull run, and the state of the pulls')
    .option(
      '--since <time>',
      'only what is new since this time (ISO-8601 or UNIX seconds), or auto: since the last pull',
      sinceOrAuto,
    )
    .option('--base-url <url>', "the source's API base URL (as --source-base-url)")
    .option('--guild <id>', 'discord: the guild (server) to pull (env DISCORD_GUILD_ID)')
    .action(later(() => import('./pull-command.js'), 'pullAction'));

  addConfigOptions(program.command('sync'), 'sync')
    .argument('<source>', `the live source: ${SOURCE_NAMES.join(', ')}`, oneOf(SOURCE_NAMES, 'The source'))
    .description('until stopped: pull what is new, import it, verify it, wait, again; --final: the cutover')
    .requiredOption('--out <dir>', "the pull's folder, which the import reads as the source's export (keep it)")
    .option('--final', 'the cutover, once the source takes no more writes: one last round, then a full verify')
    .option('--guild <id>', 'discord: the guild (server) to pull (env DISCORD_GUILD_ID)')
    .option('--rounds <n>', 'stop after this many rounds (default: until Ctrl+C or SIGTERM)', wholeNumber(1))
    .action(later(() => import('./sync-command.js'), 'syncAction'));

  program
    .command('demo')
    .description('import the bundled fixtures/ into an embedded sandbox, with real progress output')
    .option('--json', 'print the summary as JSON')
    .action(later(() => import('./demo-command.js'), 'demoAction'));

  program
    .command('init')
    .argument('[path]', 'the export: a folder, a .zip or a file', '.')
    .description('look at an export and write .migrate.config.json to import it (never the API key)')
    .option('--force', 'overwrite an existing config file')
    .option('--print', 'only print the config, write nothing')
    .option('--pick <field=column>', 'take this column for this API field (repeatable): --pick data.text=body', pairs())
    .option(
      '--entity <file=entity>',
      'the entity a plain file holds (repeatable): --entity people.csv=users',
      pairs(entityName),
    )
    .option('--app-id <id>', 'write this app id into the config')
    .option('--region <region>', 'write this region into the config (us, eu, in)', oneOf(KNOWN_REGIONS))
    .option('--base-url <url>', 'write this base URL into the config (a sandbox, say)')
    .option('-c, --config <file>', `the config file to write (default ${CONFIG_FILE} in the working directory)`)
    .action(later(() => import('./init-command.js'), 'initAction'));

  addConfigOptions(program.command('verify'), 'verify')
    .description('read the service back and report, per record of the export, what is missing or different')
    .option('--entities <list>', `check only these, comma-separated (${ENTITY_ORDER.join(',')})`, entityList)
    .option('--sample <n>', 'compare a random sample of N records per entity (extras are not counted)', wholeNumber(1))
    .option('--since <time>', 'as given to import: messages sent before it are not expected', sinceTime)
    .option('--repair', 'send the missing records again (as import does), then check them again')
    .action(later(() => import('./verify-command.js'), 'verifyAction'));

  const ids = program.command('ids').description("look up records in the migration's id map and id log");
  addConfigOptions(ids.command('find <id>'), 'ids')
    .description('print every line about a source id, muid, uid, guid or service message id (exit 1: none)')
    .action(later(() => import('./ids-command.js'), 'findAction'));
  addConfigOptions(ids.command('of <source-ids...>'), 'ids of')
    .description('print the uid, guid or muid a preset gives each export id, under idRule (docs/ids.md)')
    .addOption(new Option('--kind <kind>', 'what the ids are').choices(['user', 'group', 'message']).default('user'))
    .action(later(() => import('./ids-command.js'), 'ofAction'));

  addConfigOptions(program.command('replay'), 'replay')
    .argument('[rejects-file]', 'the rejects file, as you edited it (default: the "rejects" key)')
    .description('send the rejected records again, as edited in the rejects file; what gets in is closed')
    .option('--dry-run', 'check the records still open without sending anything')
    .option(
      '--without-missing-files',
      'send the messages held for attachments missing at their source (404, 410, not in the export) without ' +
        'them; their text kept, what was left out noted in data.metadata.notCarried',
    )
    .option('--reason <text>', 'with --without-missing-files: why, kept in the note of each message')
    .action(later(() => import('./replay-command.js'), 'replayAction'));

  addConfigOptions(program.command('undo'), 'undo')
    .description('delete from the target what this migration created (a trial import), newest first')
    .option('--yes', 'really delete: without it undo only says what it would delete')
    .option('--dry-run', 'say what would be deleted, delete nothing')
    .action(later(() => import('./undo-command.js'), 'undoAction'));

  addConfigOptions(program.command('report'), 'report')
    .description('write the migration report: one HTML file from the run log, checkpoint and rejects file')
    .option('--out <file>', 'where to write it (default migration-report.html, or migration-report.md; - for stdout)')
    .option('--format <format>', 'html, or md for the overview and rejects as Markdown', reportFormat, 'html')
    .action(later(() => import('./report-command.js'), 'reportAction'));
}

function registerSandboxCommand(program: Command, later: ReturnType<typeof actions>): void {
  program
    .command('sandbox')
    .description('run a local server of the import API (for trials, tests and the demo)')
    .option('--port <n>', 'port (0 picks a free one)', nonNegative, 8787)
    .option('--host <host>', 'address to listen on (loopback only by default)', '127.0.0.1')
    .option('--api-key <key>', `key the sandbox accepts (env MIGRATE_API_KEY; default "${SANDBOX_DEFAULT_API_KEY}")`)
    .option('--requests-per-minute <n>', 'answer 429 over this rate (default: unlimited)', nonNegative)
    .option('--latency-ms <n>', 'answer every request after this long', nonNegative)
    .option('--fail-500-before <p>', 'fault: 500 before storing, with probability p', probability)
    .option('--fail-500-after <p>', 'fault: 500 after storing (the ambiguous case)', probability)
    .option('--drop <p>', 'fault: drop the connection without an answer', probability)
    .option('--spurious-429 <p>', 'fault: 429 with Retry-After though under the rate', probability)
    .option('--slow <p>', 'fault: answer after --slow-ms (a latency spike)', probability)
    .option('--slow-ms <n>', 'delay of a latency spike', nonNegative)
    .option('--poison <regex>', 'fault: a request holding a record whose id matches fails with 500 every time')
    .option('--seed <n>', 'seed of the fault dice', nonNegative)
    .option('--dump <file>', 'write what was stored to this JSON file on exit')
    .option('--no-keep-records', 'keep only ids (for million-record runs)')
    .option('--response-style <style>', 'flat, or nested as in the vendor examples', responseStyle)
    .option('--rate-headers <style>', 'dashed: X-Rate-Limit* (default); compact: X-RateLimit-*', rateHeaderStyle)
    .option('--api-version <version>', 'serve only this version segment (default: both v3.0 and v3)')
    .option('--tls', 'serve HTTPS with a self-signed certificate made at start; prints where it is written')
    .option('--tls-cert <pem>', 'serve HTTPS with this certificate (with --tls-key)')
    .option('--tls-key <pem>', 'the private key of --tls-cert')
    .option('--json', 'print {"url", "port"} as JSON when listening (and "ca", the certificate, with --tls)')
    .option('--reads-without-muid', 'reads answer messages without their muid')
    .option('--group-reads-without-metadata', 'group reads leave metadata out')
    .option(
      '--retention-days <n>',
      'messages older than n days are accepted, never read back (default: keep all)',
      nonNegative,
    )
    .option(
      '--refuse-beyond-retention',
      'with --retention-days: an older message fails its request with 500 after the records before it are stored',
    )
    .option('--read-rate <n>', 'answer reads and deletes 429 over n a minute (default: unlimited)', nonNegative)
    .option('--lose-share <p>', 'fault: answer success for this share of records without storing them', probability)
    .option('--lose-pattern <regex>', 'fault: answer success for records whose id matches, without storing them')
    .option('--seed-users <file>', "users the app already has (CSV/JSON/NDJSON, uid or a user map's to)")
    .action(later(() => import('./sandbox-command.js'), 'sandboxAction'));
}
