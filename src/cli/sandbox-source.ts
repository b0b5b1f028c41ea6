/**
 * `chat-migrate sandbox --source <name>`: the fake of a live source (docs/sandbox.md, "Fakes of the
 * live sources"), for `pull` trials and tests. Prints where it listens and the environment that
 * reaches it; the fake's credentials are made up, so printing them is the point.
 */
import { ConfigError, ExitCode } from '../errors.js';
import type { FakeSourceName } from '../sandbox/sources/registry.js';
import { type SandboxFlags, tlsOption, untilStopped, writeCertificate } from './sandbox-flags.js';
import type { CommandContext } from './context.js';

/** The import sandbox's flags that mean nothing to a fake source: refused rather than ignored. */
const IMPORT_ONLY: ReadonlyArray<[keyof SandboxFlags, string]> = [
  ['apiKey', '--api-key'],
  ['fail500After', '--fail-500-after'],
  ['slow', '--slow'],
  ['slowMs', '--slow-ms'],
  ['poison', '--poison'],
  ['dump', '--dump'],
  ['responseStyle', '--response-style'],
  ['rateHeaders', '--rate-headers'],
  ['apiVersion', '--api-version'],
  ['readsWithoutMuid', '--reads-without-muid'],
  ['retentionDays', '--retention-days'],
  ['refuseBeyondRetention', '--refuse-beyond-retention'],
  ['readRate', '--read-rate'],
  ['loseShare', '--lose-share'],
  ['losePattern', '--lose-pattern'],
  ['seedUsers', '--seed-users'],
];

export const CONTROL_ROUTES = [
  'POST /__fake/messages {"channelId","senderId","text"}',
  'POST /__fake/users {"name"}',
  'POST /__fake/members {"channelId","userId"}',
  'GET /__fake/stats',
  'GET /__fake/world',
  'GET /__fake/media/<id>',
];

export async function fakeSourceAction(ctx: CommandContext, flags: SandboxFlags): Promise<number> {
  const refused = IMPORT_ONLY.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (flags.keepRecords === false) refused.push('--no-keep-records');
  if (refused.length > 0) {
    const verb = refused.length > 1 ? 'are' : 'is';
    const message = `sandbox --source: ${refused.join(', ')} ${verb} for the import sandbox only`;
    throw new ConfigError('SANDBOX_OPTIONS', message, { exitCode: ExitCode.usage });
  }
  const { loadFake } = await import('../sandbox/sources/registry.js');
  const { startFakeServer } = await import('../sandbox/sources/fake-server.js');
  const tls = await tlsOption(flags);
  const seed = flags.seed ?? 1;
  const fake = await startFakeServer({
    source: await loadFake(flags.source as FakeSourceName),
    world: { users: flags.users, channels: flags.channels, messages: flags.messages, seed },
    host: flags.host,
    port: flags.port,
    requestsPerMinute: flags.requestsPerMinute,
    latencyMs: flags.latencyMs,
    seed,
    faults: { spurious429: flags.spurious429, drop: flags.drop, fail500Before: flags.fail500Before },
    tls,
  });
  // Listening for Ctrl+C before saying where it listens: a script that reads the line may stop it at once.
  const stopped = untilStopped(ctx.signals);
  const ca = tls === 'self-signed' ? await writeCertificate(fake.certificate!) : undefined;
  const world = {
    users: fake.world.users.length,
    channels: fake.world.channels.length,
    messages: fake.world.totalMessages(),
    seed,
  };
  if (flags.json) {
    const { url, port, source, env, faults } = fake;
    ctx.stdout.write(`${JSON.stringify({ url, port, source, env, ca, faults, world })}\n`);
  } else {
    const out = [
      `fake ${fake.source} listening on ${fake.url} (${world.users} users, ${world.channels} channels, ` +
        `${world.messages} messages, seed ${seed}); Ctrl+C to stop`,
      `set: ${
        Object.entries(fake.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ') || '(nothing)'
      }`,
      `then: chat-migrate pull ${fake.source} --base-url ${fake.url} --out <dir>`,
      `control: ${CONTROL_ROUTES.join('; ')}`,
    ];
    if (ca) out.push(`its self-signed certificate is ${ca}: trust it with NODE_EXTRA_CA_CERTS=${ca}`);
    if (fake.faults.length > 0) out.push(`injecting faults: ${fake.faults.join(', ')}`);
    ctx.stdout.write(`${out.join('\n')}\n`);
  }
  await stopped;
  await fake.close();
  return ExitCode.ok;
}
