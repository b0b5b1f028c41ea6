import type { Dispatcher } from 'undici';
import type { MigrateConfig } from '../config/schema.js';
import { createDispatcher, proxyFor } from './dispatcher.js';
import { readProxySettings, type ProxySettings } from './proxy-env.js';
import type { TransportRoute } from './transport-errors.js';

/** What every client of the service (import, read, delete) needs to reach it. */
export interface EndpointOptions {
  baseUrl: string;
  apiKey: string;
  /** The version segment of every path: `v3.0` as the spec writes it, or `v3`. */
  apiVersion: string;
  connections: number;
  timeoutMs: number;
  /** Default: read from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxySettings;
}

/** The service as one client reaches it: one keep-alive dispatcher (proxies, TLS) and the fixed parts of a request. */
export interface ServiceEndpoint {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  /** The base path with the version segment and a slash: `/v3.0/`. */
  readonly prefix: string;
  /** host[:port], as errors name it. */
  readonly host: string;
  readonly route: TransportRoute;
  readonly headers: Record<string, string>;
  /** The dispatcher's timeout (until the answer's headers, and between its chunks), as messages name it. */
  readonly timeoutMs: number;
}

export function openEndpoint(options: EndpointOptions): ServiceEndpoint {
  const url = new URL(options.baseUrl);
  const proxy = options.proxy ?? readProxySettings(process.env);
  return {
    dispatcher: createDispatcher({ connections: options.connections, timeoutMs: options.timeoutMs, proxy }),
    origin: url.origin,
    prefix: `${url.pathname.replace(/\/+$/, '')}/${options.apiVersion}/`,
    host: url.host,
    route: { host: url.host, proxy: proxyFor(url, proxy) },
    headers: { 'content-type': 'application/json', accept: 'application/json', apikey: options.apiKey },
    timeoutMs: options.timeoutMs,
  };
}

/** The endpoint settings of a run's config (its key, target, version, connections and timeout). */
export function endpointOptionsOf(config: MigrateConfig, proxy?: ProxySettings): EndpointOptions {
  return {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey!,
    apiVersion: config.apiVersion,
    connections: config.concurrency,
    timeoutMs: config.timeoutMs,
    proxy,
  };
}
