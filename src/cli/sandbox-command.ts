import type { Command } from 'commander';
import { probability, wholeNumber } from './arg-parsers.js';
import { ExitCode } from '../errors.js';
import { SANDBOX_DEFAULT_API_KEY } from '../sandbox/default-key.js';
import type { SandboxOptions } from '../sandbox/index.js';
import { runCommand } from './run-command.js';

interface SandboxFlags {
  port: number;
  host: string;
  apiKey?: string;
  requestsPerMinute?: number;
  latencyMs?: number;
  fail500Before?: number;
  fail500After?: number;
  drop?: number;
  spurious429?: number;
  slow?: number;
  slowMs?: number;
  poison?: string;
  seed?: number;
  dump?: string;
  keepRecords: boolean;
  responseStyle?: 'flat' | 'nested';
  json?: boolean;
}

const nonNegative = wholeNumber(0);

export function registerSandboxCommand(program: Command): void {
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
    .option('--response-style <style>', 'flat, or nested as in the vendor examples')
    .option('--json', 'print {"url", "port"} as JSON when listening')
    .action(runCommand((flags: SandboxFlags) => sandboxAction(flags)));
}

async function sandboxAction(flags: SandboxFlags): Promise<number> {
  const apiKey = flags.apiKey ?? process.env.MIGRATE_API_KEY ?? SANDBOX_DEFAULT_API_KEY;
  const options: SandboxOptions = {
    host: flags.host,
    port: flags.port,
    apiKey,
    requestsPerMinute: flags.requestsPerMinute,
    latencyMs: flags.latencyMs,
    seed: flags.seed,
    dumpFile: flags.dump,
    keepRecords: flags.keepRecords,
    responseStyle: flags.responseStyle,
    faults: {
      fail500BeforeStore: flags.fail500Before,
      fail500AfterStore: flags.fail500After,
      dropConnection: flags.drop,
      spurious429: flags.spurious429,
      slowRate: flags.slow,
      slowMs: flags.slowMs,
      poisonIdPattern: flags.poison,
    },
  };
  // Loaded here, not at start-up: the other commands never need the server.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox(options);
  if (flags.json) process.stdout.write(`${JSON.stringify({ url: sandbox.url, port: sandbox.port })}\n`);
  else {
    const key = apiKey === SANDBOX_DEFAULT_API_KEY ? ` (apiKey "${SANDBOX_DEFAULT_API_KEY}")` : '';
    process.stdout.write(`sandbox listening on ${sandbox.url}${key}; stats at ${sandbox.url}/__sandbox/stats; Ctrl+C to stop\n`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sandbox.close();
  return ExitCode.ok;
}
