/**
 * The proxy settings of the environment, read as curl, npm and git read them, for undici's
 * EnvHttpProxyAgent. A proxy URL may carry credentials: they are never printed (`proxyDisplay`,
 * `proxySecrets`).
 */
import { ConfigError } from '../errors.js';

export interface ProxyUrl {
  url: URL;
  /** The variable it came from, for messages. */
  variable: string;
}

export interface ProxySettings {
  /** For http:// targets: http_proxy, else HTTP_PROXY. */
  http?: ProxyUrl;
  /** For https:// targets: https_proxy, else HTTPS_PROXY, else the http proxy (as npm and undici do). */
  https?: ProxyUrl;
  /** no_proxy, else NO_PROXY: hosts, domains (`example.com` matches its subdomains), `host:port`, or `*`. */
  noProxy: string;
}

/** Lower case first, as curl and undici read them; an empty variable is unset. */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** Parses one proxy variable; `host:3128` without a scheme means http://, as curl takes it. */
function parseProxy(found: { name: string; value: string } | undefined): ProxyUrl | undefined {
  if (!found) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`);
  } catch {
    // Not echoed: the value may hold credentials.
    throw new ConfigError('CONFIG_INVALID_PROXY', `${found.name} is not a valid proxy URL (expected http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const message = `${found.name} must be an http:// or https:// proxy URL, not ${url.protocol}`;
    throw new ConfigError('CONFIG_INVALID_PROXY', message);
  }
  return { url, variable: found.name };
}

export function readProxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const http = parseProxy(firstSet(env, ['http_proxy', 'HTTP_PROXY']));
  const https = parseProxy(firstSet(env, ['https_proxy', 'HTTPS_PROXY'])) ?? http;
  return { http, https, noProxy: firstSet(env, ['no_proxy', 'NO_PROXY'])?.value ?? '' };
}

/** The proxy as it may be shown: scheme, host and port, never the credentials. */
export function proxyDisplay(proxy: ProxyUrl): string {
  return `${proxy.url.protocol}//${proxy.url.host}`;
}

/**
 * What of the proxy variables must never be printed: their passwords (and user:password), raw and
 * decoded. Not the user name alone: a common word would be blotted out of every message.
 */
export function proxySecrets(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const name of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY']) {
    const value = env[name]?.trim();
    if (!value) continue;
    // The userinfo part, read by hand so that a URL the parser refuses still has its secret found.
    const userinfo = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^@/]*)@/i.exec(value)?.[1];
    if (!userinfo) continue;
    const password = userinfo.slice(userinfo.indexOf(':') + 1 || userinfo.length);
    for (const part of [userinfo, password]) {
      if (!part) continue;
      out.push(part);
      try {
        out.push(decodeURIComponent(part));
      } catch {
        // A malformed escape: the raw form is already listed.
      }
    }
  }
  return out;
}
