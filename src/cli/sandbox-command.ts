import { ExitCode } from '../errors.js';
import { SANDBOX_DEFAULT_API_KEY } from '../sandbox/default-key.js';
import type { SandboxOptions } from '../sandbox/index.js';
import { type SandboxFlags, tlsOption, untilStopped, writeCertificate } from './sandbox-flags.js';
import type { CommandContext } from './context.js';

export async function sandboxAction(ctx: CommandContext, flags: SandboxFlags): Promise<number> {
  const apiKey = flags.apiKey ?? ctx.env.MIGRATE_API_KEY ?? SANDBOX_DEFAULT_API_KEY;
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
    groupReadsWithoutMetadata: flags.groupReadsWithoutMetadata,
    retentionDays: flags.retentionDays,
    refuseBeyondRetention: flags.refuseBeyondRetention,
    readRequestsPerMinute: flags.readRate,
    // The read layer loads only for a seeded sandbox.
    seedUsers:
      flags.seedUsers === undefined
        ? undefined
        : await (await import('./seed-users.js')).readSeedUsers(flags.seedUsers, ctx.cwd),
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
  // Listening for Ctrl+C before saying where it listens: a script that reads the line may stop it at once.
  const stopped = untilStopped(ctx.signals);
  // A self-signed certificate is written where a client can be told to trust it.
  const ca = options.tls === 'self-signed' ? await writeCertificate(sandbox.certificate!) : undefined;
  if (flags.json) {
    const { url, port, faults } = sandbox;
    ctx.stdout.write(`${JSON.stringify({ url, port, ca, faults, seededUsers: options.seedUsers?.length })}\n`);
  } else {
    const key = apiKey === SANDBOX_DEFAULT_API_KEY ? ` (apiKey "${SANDBOX_DEFAULT_API_KEY}")` : '';
    ctx.stdout.write(
      `sandbox listening on ${sandbox.url}${key}; stats at ${sandbox.url}/__sandbox/stats; Ctrl+C to stop\n`,
    );
    if (ca) ctx.stdout.write(`its self-signed certificate is ${ca}: trust it with NODE_EXTRA_CA_CERTS=${ca}\n`);
    // A trial that meets 500s or lost records should see here that it asked for them.
    if (sandbox.faults.length > 0) ctx.stdout.write(`injecting faults: ${sandbox.faults.join(', ')}\n`);
    const seeded = options.seedUsers?.length;
    if (seeded !== undefined) ctx.stdout.write(`seeded ${seeded} existing user(s) from ${flags.seedUsers}\n`);
  }
  await stopped;
  await sandbox.close();
  return ExitCode.ok;
}
