import type { JsonObject } from '../entities/types.js';
import { ConfigError } from '../errors.js';
import type { RateHeaderStyle } from './rate-window.js';
import type { TlsPair } from './tls-pair.js';
import type { SandboxFaults, SandboxOptions } from './types.js';

/** Options with every default filled in and every value checked. */
export interface ResolvedOptions {
  host: string;
  port: number;
  apiKey: string;
  requestsPerMinute: number;
  latencyMs: number;
  maxRecordsPerRequest: number;
  faults: ResolvedFaults;
  /** The wait a spurious 429 asks for (`faults.retryAfterMs`). */
  spuriousRetryAfterMs: number;
  seed: number;
  keepRecords: boolean;
  responseStyle: 'flat' | 'nested';
  dumpFile?: string;
  now: () => number;
  /** Set: serve HTTPS, with this pair or one made at start (`startSandbox`). */
  tls?: TlsPair | 'self-signed';
  rateHeaders: RateHeaderStyle;
  /** The import paths served: `/<version>/data_import/<entity>`. */
  importPath: RegExp;
  apiVersionShown: string;
  /** The version segments reads and deletes are served under (`v3` is always one). */
  readPrefix: RegExp;
  readsWithoutMuid: boolean;
  groupReadsWithoutMetadata: boolean;
  retentionDays: number;
  /** Messages beyond `retentionDays` fail their request with 500 after the rows before them are stored. */
  refuseBeyondRetention: boolean;
  readRequestsPerMinute: number;
  seedUsers: JsonObject[];
  onExchange?: SandboxOptions['onExchange'];
}

export interface ResolvedFaults {
  fail500BeforeStore: number;
  fail500AfterStore: number;
  dropConnection: number;
  spurious429: number;
  slowRate: number;
  slowMs: number;
  poison?: RegExp;
  loseShare: number;
  losePattern?: RegExp;
}

const PROBABILITY_KEYS = [
  'fail500BeforeStore',
  'fail500AfterStore',
  'dropConnection',
  'spurious429',
  'slowRate',
  'loseShare',
] as const satisfies readonly (keyof SandboxFaults)[];

function refuse(message: string): never {
  throw new ConfigError('SANDBOX_OPTIONS', `sandbox: ${message}`);
}

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) refuse(`${name} must be an integer >= ${min}`);
  return value;
}

function pattern(name: string, source: string | undefined): RegExp | undefined {
  if (source === undefined || source === '') return undefined;
  try {
    return new RegExp(source);
  } catch (cause) {
    throw new ConfigError('SANDBOX_OPTIONS', `sandbox: faults.${name} is not a valid regular expression`, { cause });
  }
}

function resolveFaults(faults: SandboxFaults = {}): ResolvedFaults {
  const resolved: ResolvedFaults = {
    fail500BeforeStore: 0,
    fail500AfterStore: 0,
    dropConnection: 0,
    spurious429: 0,
    slowRate: 0,
    loseShare: 0,
    slowMs: count('faults.slowMs', faults.slowMs, 30_000, 0),
  };
  for (const key of PROBABILITY_KEYS) {
    const p = faults[key];
    if (p === undefined) continue;
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) refuse(`faults.${key} must be a probability between 0 and 1`);
    resolved[key] = p;
  }
  resolved.poison = pattern('poisonIdPattern', faults.poisonIdPattern);
  resolved.losePattern = pattern('losePattern', faults.losePattern);
  return resolved;
}

/** `v3.0` as the spec writes it and `v3` as the vendor's current pages do, unless one version is asked for. */
function importPathFor(version: string | undefined): {
  importPath: RegExp;
  readPrefix: RegExp;
  apiVersionShown: string;
} {
  if (version !== undefined && !/^v\d+(\.\d+)?$/.test(version)) refuse('apiVersion must look like v3.0 or v3');
  const segment = version === undefined ? 'v3(?:\\.0)?' : version.replace('.', '\\.');
  return {
    importPath: new RegExp(`^/${segment}/data_import/(users|groups|members|messages)/?$`),
    // Reads also answer under `v3`, as the vendor's current pages write every path.
    readPrefix: new RegExp(`^/(?:${segment}|v3)/`),
    apiVersionShown: version ?? 'v3.0',
  };
}

/** Refusing old messages needs a window to be older than. */
function refusesOld(options: SandboxOptions): boolean {
  if (options.refuseBeyondRetention !== true) return false;
  if (!options.retentionDays) refuse('refuseBeyondRetention needs retentionDays (a window of at least 1 day)');
  return true;
}

/** Fills defaults and refuses nonsense early, so the server never meets a NaN mid-run. */
export function resolveSandboxOptions(options: SandboxOptions): ResolvedOptions {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') refuse('apiKey is required');
  const style = options.responseStyle ?? 'flat';
  if (style !== 'flat' && style !== 'nested') refuse("responseStyle must be 'flat' or 'nested'");
  const port = count('port', options.port, 0, 0);
  if (port > 65_535) refuse('port must be at most 65535');
  const { tls } = options;
  const pem = (v: unknown) => typeof v === 'string' && v !== '';
  if (typeof tls === 'object' && !(pem(tls.cert) && pem(tls.key))) refuse('tls needs a certificate and its key (PEM)');
  if (tls !== undefined && typeof tls !== 'object' && tls !== 'self-signed') {
    refuse("tls must be a certificate and key, or 'self-signed'");
  }
  const rateStyle = options.rateHeaders ?? 'dashed';
  if (rateStyle !== 'dashed' && rateStyle !== 'compact') refuse("rateHeaders must be 'dashed' or 'compact'");
  const seedUsers = options.seedUsers ?? [];
  for (const [i, user] of seedUsers.entries()) {
    if (typeof user?.uid !== 'string' || user.uid === '') refuse(`seedUsers[${i}] needs a uid`);
  }
  const seed = options.seed ?? 1;
  if (!Number.isFinite(seed)) refuse('seed must be a finite number');
  return {
    host: options.host ?? '127.0.0.1',
    port,
    apiKey: options.apiKey,
    requestsPerMinute: count('requestsPerMinute', options.requestsPerMinute, 0, 0),
    latencyMs: count('latencyMs', options.latencyMs, 0, 0),
    maxRecordsPerRequest: count('maxRecordsPerRequest', options.maxRecordsPerRequest, 50, 1),
    faults: resolveFaults(options.faults),
    spuriousRetryAfterMs: count('faults.retryAfterMs', options.faults?.retryAfterMs, 1000, 0),
    seed,
    keepRecords: options.keepRecords ?? true,
    responseStyle: style,
    dumpFile: options.dumpFile,
    now: options.now ?? Date.now,
    tls,
    rateHeaders: rateStyle,
    ...importPathFor(options.apiVersion),
    readsWithoutMuid: options.readsWithoutMuid ?? false,
    groupReadsWithoutMetadata: options.groupReadsWithoutMetadata ?? false,
    retentionDays: count('retentionDays', options.retentionDays, 0, 0),
    refuseBeyondRetention: refusesOld(options),
    readRequestsPerMinute: count('readRequestsPerMinute', options.readRequestsPerMinute, 0, 0),
    seedUsers,
    onExchange: options.onExchange,
  };
}
