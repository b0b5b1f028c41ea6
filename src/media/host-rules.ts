/**
 * Which attachment URLs are carried, and the header each host's downloads carry. A host is on the
 * allow-list by its name (any port), or by a `*.domain` entry for the domain's subdomains. A header is
 * sent only to the host it was configured for, the value read from the environment at the start.
 */
import type { MediaConfig, MediaHostAuth } from '../config/media-schema.js';
import { ConfigError } from '../errors.js';

export interface HostHeader {
  name: string;
  value: string;
}

export class HostRules {
  private readonly exact = new Map<string, HostHeader | undefined>();
  private readonly suffixes: [string, HostHeader | undefined][] = [];
  /** Every header value: never to be printed (the reporter's redaction list). */
  readonly secrets: string[] = [];

  /** Without `env`, only which hosts are listed (validate): no header value is read. */
  constructor(hosts: MediaConfig['hosts'], env?: NodeJS.ProcessEnv) {
    for (const [pattern, auth] of Object.entries(hosts)) {
      let header: HostHeader | undefined;
      if (env !== undefined && auth.basic !== undefined) header = this.basicHeader(pattern, auth.basic, env);
      else if (env !== undefined && auth.header !== undefined && auth.valueEnv !== undefined) {
        const value = env[auth.valueEnv];
        if (!value)
          throw new ConfigError(
            'CONFIG_INVALID',
            `media.hosts.${pattern}: the environment variable ${auth.valueEnv} is not set ` +
              `(it holds the ${auth.header} value)`,
          );
        header = { name: auth.header, value: `${auth.prefix ?? ''}${value}` };
        this.secrets.push(value);
      }
      const name = pattern.toLowerCase();
      if (name.startsWith('*.')) this.suffixes.push([name.slice(1), header]);
      else this.exact.set(name, header);
    }
  }

  /** `Authorization: Basic <user:password>` from two variables, both needed. */
  private basicHeader(pattern: string, basic: MediaHostAuth['basic'], env: NodeJS.ProcessEnv): HostHeader {
    const missing = [basic.userEnv, basic.passwordEnv].filter((name) => !env[name]);
    if (missing.length > 0)
      throw new ConfigError(
        'CONFIG_INVALID',
        `media.hosts.${pattern}: the environment variable${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} ` +
          `${missing.length > 1 ? 'are' : 'is'} not set (the HTTP Basic user and password)`,
      );
    const encoded = Buffer.from(`${env[basic.userEnv]}:${env[basic.passwordEnv]}`).toString('base64');
    this.secrets.push(env[basic.passwordEnv]!, encoded);
    return { name: 'Authorization', value: `Basic ${encoded}` };
  }

  /** Whether downloads from this host are allowed. */
  allows(hostname: string): boolean {
    const name = hostname.toLowerCase();
    return this.exact.has(name) || this.suffixes.some(([suffix]) => name.endsWith(suffix));
  }

  /** The header configured for exactly this host (by its own entry or its domain's), if any. */
  headerFor(hostname: string): HostHeader | undefined {
    const name = hostname.toLowerCase();
    if (this.exact.has(name)) return this.exact.get(name);
    return this.suffixes.find(([suffix]) => name.endsWith(suffix))?.[1];
  }
}

/**
 * A host whose links stop working once the old system is closed or after a while (signed, expiring or
 * login-only URLs): each system names its own (src/systems/<name>/index.ts). `validate` counts the
 * attachments on them that `media` does not cover.
 */
export interface ExpiringHost {
  /** A host name, or `*.domain` for the domain's subdomains. */
  pattern: string;
  why: string;
}

/** The expiring-host entry a hostname falls under, if any. */
export function expiringHostOf(hostname: string, hosts: readonly ExpiringHost[]): string | undefined {
  const name = hostname.toLowerCase();
  for (const { pattern } of hosts) {
    if (pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern) return pattern;
  }
  return undefined;
}
