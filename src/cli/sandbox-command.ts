import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { probability, wholeNumber } from './arg-parsers.js';
import { ConfigError, ExitCode } from '../errors.js';
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
  rateHeaders?: 'dashed' | 'compact';
  apiVersion?: string;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  json?: boolean;
  readsWithoutMuid?: boolean;
  retentionDays?: number;
  readRate?: number;
  loseShare?: number;
  losePattern?: string;
}

const nonNegative = wholeNumber(0);

const rateHeaderStyle = (value: string): 'dashed' | 'compact' => {
  if (value !== 'dashed' && value !== 'compact') throw new InvalidArgumentError('must be dashed or compact');
  return value;
};

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
    .option('--rate-headers <style>', 'dashed: X-Rate-Limit* (default); compact: X-RateLimit-*', rateHeaderStyle)
    .option('--api-version <version>', 'serve only this version segment (default: both v3.0 and v3)')
    .option('--tls', 'serve HTTPS with a self-signed certificate made at start; prints where it is written')
    .option('--tls-cert <pem>', 'serve HTTPS with this certificate (with --tls-key)')
    .option('--tls-key <pem>', 'the private key of --tls-cert')
    .option('--json', 'print {"url", "port"} as JSON when listening (and "ca", the certificate, with --tls)')
    .option('--reads-without-muid', 'reads answer messages without their muid')
    .option(
      '--retention-days <n>',
      'messages older than n days are accepted, never read back (default: keep all)',
      nonNegative,
    )
    .option('--read-rate <n>', 'answer reads and deletes 429 over n a minute (default: unlimited)', nonNegative)
    .option('--lose-share <p>', 'fault: answer success for this share of records without storing them', probability)
    .option('--lose-pattern <regex>', 'fault: answer success for records whose id matches, without storing them')
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
    rateHeaders: flags.rateHeaders,
    apiVersion: flags.apiVersion,
    tls: await tlsOption(flags),
    readsWithoutMuid: flags.readsWithoutMuid,
    retentionDays: flags.retentionDays,
    readRequestsPerMinute: flags.readRate,
    faults: {
      fail500BeforeStore: flags.fail500Before,
      fail500AfterStore: flags.fail500After,
      dropConnection: flags.drop,
      spurious429: flags.spurious429,
      slowRate: flags.slow,
      slowMs: flags.slowMs,
      poisonIdPattern: flags.poison,
      loseShare: flags.loseShare,
      losePattern: flags.losePattern,
    },
  };
  // Loaded here, not at start-up: the other commands never need the server.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox(options);
  // A self-signed certificate is written where a client can be told to trust it.
  const ca = options.tls === 'self-signed' ? await writeCertificate(sandbox.certificate!) : undefined;
  if (flags.json) process.stdout.write(`${JSON.stringify({ url: sandbox.url, port: sandbox.port, ca })}\n`);
  else {
    const key = apiKey === SANDBOX_DEFAULT_API_KEY ? ` (apiKey "${SANDBOX_DEFAULT_API_KEY}")` : '';
    process.stdout.write(
      `sandbox listening on ${sandbox.url}${key}; stats at ${sandbox.url}/__sandbox/stats; Ctrl+C to stop\n`,
    );
    if (ca) process.stdout.write(`its self-signed certificate is ${ca}: trust it with NODE_EXTRA_CA_CERTS=${ca}\n`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sandbox.close();
  return ExitCode.ok;
}

/** --tls makes a pair at start; --tls-cert and --tls-key name one, both or neither. */
async function tlsOption(flags: SandboxFlags): Promise<SandboxOptions['tls']> {
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return flags.tls ? 'self-signed' : undefined;
  if (flags.tls) {
    throw new ConfigError(
      'SANDBOX_OPTIONS',
      'sandbox: --tls makes its own certificate; leave out --tls-cert and --tls-key',
    );
  }
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) {
    throw new ConfigError('SANDBOX_OPTIONS', 'sandbox: --tls-cert and --tls-key go together');
  }
  const read = async (file: string, what: string) => {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw new ConfigError('SANDBOX_OPTIONS', `sandbox: cannot read the ${what} ${file}: ${(err as Error).message}`);
    }
  };
  return { cert: await read(flags.tlsCert, 'certificate'), key: await read(flags.tlsKey, 'key') };
}

/** Writes the certificate (not its key) to a fresh folder of the temp dir; returns its path. */
async function writeCertificate(pem: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'chat-migrate-sandbox-')), 'sandbox-ca.pem');
  await writeFile(file, pem, { mode: 0o644 });
  return file;
}
