/** The sandbox command's flags, and its TLS, certificate and stop helpers. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { SandboxOptions } from '../sandbox/index.js';
import type { SignalSource } from '../pipeline/run/signals.js';

export interface SandboxFlags {
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
  groupReadsWithoutMetadata?: boolean;
  retentionDays?: number;
  refuseBeyondRetention?: boolean;
  readRate?: number;
  loseShare?: number;
  losePattern?: string;
  seedUsers?: string;
}

/** Resolves on Ctrl+C or SIGTERM: a server runs until then. */
export function untilStopped(signals: SignalSource): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      resolve();
    };
    signals.on('SIGINT', stop);
    signals.on('SIGTERM', stop);
  });
}

/** --tls makes a pair at start; --tls-cert and --tls-key name one, both or neither. */
export async function tlsOption(flags: SandboxFlags): Promise<SandboxOptions['tls']> {
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
export async function writeCertificate(pem: string): Promise<string> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'chat-migrate-sandbox-')), 'sandbox-ca.pem');
  await writeFile(file, pem, { mode: 0o644 });
  return file;
}
