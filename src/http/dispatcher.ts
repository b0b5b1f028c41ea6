import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ProxySettings } from './proxy-env.js';

export interface DispatcherOptions {
  /** Connections per origin. */
  connections: number;
  /** Ends a stalled request: until the answer's headers, and between its chunks. */
  timeoutMs: number;
  proxy: ProxySettings;
  /**
   * Resolves names for direct connections (media downloads check the address connected to), NO_PROXY
   * ones included. Through a proxy the proxy resolves the target: undici's ProxyAgent sets its own
   * connect for the tunnel, so this one does not reach the proxy's connection.
   */
  lookup?: NonNullable<import('node:net').TcpNetConnectOpts['lookup']>;
}

/**
 * The one place that makes the run's HTTP dispatcher: imports, and every later request kind, go
 * through it, so proxies and TLS behave the same for all. Certificates are always verified (undici's
 * default, never turned off here); Node adds NODE_EXTRA_CA_CERTS to the trusted CAs at start-up.
 * With a proxy variable set, undici's EnvHttpProxyAgent picks per request between the proxy (a
 * CONNECT tunnel) and a direct connection (NO_PROXY); without one, a plain keep-alive agent.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const agentOptions = {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    ...(options.lookup ? { connect: { lookup: options.lookup } } : {}),
  };
  const { http, https, noProxy } = options.proxy;
  if (!http && !https) return new Agent(agentOptions);
  // Given explicitly ('' for none), so what routes the requests is what proxyFor() names in messages.
  return new EnvHttpProxyAgent({
    ...agentOptions,
    httpProxy: http?.url.href ?? '',
    httpsProxy: https?.url.href ?? '',
    noProxy,
  });
}
