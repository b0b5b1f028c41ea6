import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ProxySettings, ProxyUrl } from './proxy-env.js';

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
  const { http, https } = options.proxy;
  if (!http && !https) return new Agent(agentOptions);
  return envProxyAgent(options.proxy, agentOptions);
}

/** Given explicitly ('' for none), so undici reads no variable the tool did not parse and check. */
function envProxyAgent({ http, https, noProxy }: ProxySettings, agentOptions: object): EnvHttpProxyAgent {
  return new EnvHttpProxyAgent({
    ...agentOptions,
    httpProxy: http?.url.href ?? '',
    httpsProxy: https?.url.href ?? '',
    noProxy,
  });
}

/**
 * The proxy a request to `target` goes through, or undefined when it goes direct, as messages name it.
 * undici keeps its NO_PROXY rule private, so it is asked rather than copied: a probe EnvHttpProxyAgent
 * is handed the request and tells which of its agents it picked, without connecting anywhere. Should
 * undici rename its direct agent, the configured proxy is named (test/process/proxy.e2e.test.mjs fails).
 */
export function proxyFor(target: URL, settings: ProxySettings): ProxyUrl | undefined {
  const proxy = target.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy) return undefined;
  const probe = envProxyAgent(settings, {}) as unknown as Record<symbol, Dispatcher>;
  const agents = Object.getOwnPropertySymbols(probe).filter((s) => /proxy agent$/.test(s.description ?? ''));
  const direct = agents.find((s) => s.description === 'no proxy agent');
  if (!direct) return proxy;
  let picked: Dispatcher | undefined;
  for (const name of agents) {
    const agent = probe[name];
    agent.dispatch = () => {
      picked = agent;
      return true;
    };
  }
  (probe as unknown as Dispatcher).dispatch({ origin: target.origin, path: '/', method: 'GET' }, {});
  void (probe as unknown as Dispatcher).close();
  return picked === probe[direct] ? undefined : proxy;
}
