import { type Command, InvalidArgumentError } from 'commander';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';
import { ExitCode } from '../errors.js';
import { sinceTime, wholeNumber } from './arg-parsers.js';
import { keepWasmCompileSmall } from './heap-budget.js';
import { addConfigOptions, loadCommandConfig, type CommonOptions } from './options.js';
import { planRun } from './plan-run.js';
import { redact, runCommand } from './run-command.js';
import { runInCommand, type CommandRunSpec } from './command-run.js';

interface VerifyOptions extends CommonOptions {
  entities?: Set<EntityName>;
  sample?: number;
  since?: number;
  repair?: boolean;
}

const entityList = (value: string): Set<EntityName> => {
  const names = value.split(',').map((s) => s.trim().toLowerCase());
  for (const name of names) {
    if (!(ENTITY_ORDER as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`${name} is not an entity (${ENTITY_ORDER.join(', ')})`);
    }
  }
  return new Set(names as EntityName[]);
};

export function registerVerifyCommand(program: Command): void {
  addConfigOptions(program.command('verify'))
    .description('read the service back and report, per record of the export, what is missing or different')
    .option('--entities <list>', `check only these, comma-separated (${ENTITY_ORDER.join(',')})`, entityList)
    .option('--sample <n>', 'compare a random sample of N records per entity (extras are not counted)', wholeNumber(1))
    .option('--since <time>', 'as given to import: messages sent before it are not expected', sinceTime)
    .option('--repair', 'send the missing records again (as import does), then check them again')
    .action(runCommand((opts: VerifyOptions) => verifyAction(opts)));
}

async function verifyAction(opts: VerifyOptions): Promise<number> {
  const { config, baseDir, warnings } = await loadCommandConfig(opts, true);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const { plans } = await planRun(config, baseDir);
  // The HTTP stack loads only here, as import's does.
  keepWasmCompileSmall();
  const [{ verifyOrRepair, verifyEnd }, { formatVerifyJson, formatVerifyText }, { VERIFY_TERMS }] = await Promise.all([
    import('../pipeline/repair/run-repair.js'),
    import('../report/verify-report.js'),
    import('../report/figures.js'),
  ]);
  const repair = Boolean(opts.repair);
  const spec: CommandRunSpec = {
    command: repair ? 'verify --repair' : 'verify',
    config,
    ledger: 'existing',
    json: opts.json,
    terms: VERIFY_TERMS,
    stoppingNotice: 'stopping: the reads under way are ended.',
    stepSummary: true,
  };
  const { entities, since } = opts;
  const result = await runInCommand(
    spec,
    (run) => verifyOrRepair(run, { plans, entities, sample: opts.sample ?? 0, sinceSec: since, repair }),
    verifyEnd,
  );
  process.stdout.write(redact(opts.json ? formatVerifyJson(result) : formatVerifyText(result)));
  return result.ok ? ExitCode.ok : ExitCode.rejected;
}
