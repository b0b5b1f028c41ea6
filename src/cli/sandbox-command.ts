import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, ExitCode } from '../errors.js';
import { SANDBOX_DEFAULT_API_KEY } from '../sandbox/default-key.js';
import type { SandboxOptions } from '../sandbox/index.js';

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
  refuseBeyondRetention?: boolean;
  readRate?: number;
  loseShare?: number;
  losePattern?: string;
  seedUsers?: string;
}

export async function sandboxAction(flags: SandboxFlags): Promise<number> {
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
    refuseBeyondRetention: flags.refuseBeyondRetention,
    readRequestsPerMinute: flags.readRate,
    // The read layer loads only for a seeded sandbox.
    seedUsers:
      flags.seedUsers === undefined
        ? undefined
        : await (await import('./seed-users.js')).readSeedUsers(flags.seedUsers, process.cwd()),
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
  if (flags.json) {
    const { url, port, faults } = sandbox;
    process.stdout.write(`${JSON.stringify({ url, port, ca, faults, seededUsers: options.seedUsers?.length })}\n`);
  } else {
    const key = apiKey === SANDBOX_DEFAULT_API_KEY ? ` (apiKey "${SANDBOX_DEFAULT_API_KEY}")` : '';
    process.stdout.write(
      `sandbox listening on ${sandbox.url}${key}; stats at ${sandbox.url}/__sandbox/stats; Ctrl+C to stop\n`,
    );
    if (ca) process.stdout.write(`its self-signed certificate is ${ca}: trust it with NODE_EXTRA_CA_CERTS=${ca}\n`);
    // A trial that meets 500s or lost records should see here that it asked for them.
    if (sandbox.faults.length > 0) process.stdout.write(`injecting faults: ${sandbox.faults.join(', ')}\n`);
    const seeded = options.seedUsers?.length;
    if (seeded !== undefined) process.stdout.write(`seeded ${seeded} existing user(s) from ${flags.seedUsers}\n`);
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
