/**
 * Words for requests that got no answer (a socket error, TLS, a proxy): what a person needs to fix it,
 * naming the host and the proxy (never its credentials). Which of them stop the run is the retry
 * policy's (retry-policy.ts `classifyTransport`); this module only says what they mean.
 */
import { RemoteError } from '../errors.js';
import { proxyDisplay, type ProxyUrl } from './proxy-env.js';

/** What an undici or socket error says about a request that got no answer. */
export interface TransportFailure {
  code?: string;
  /** A proxy answered CONNECT with this status instead of opening the tunnel. */
  proxyStatus?: number;
  /** The names a certificate holds, when it was for another host. */
  certNames?: string;
}

/** Where a request was going: the host of baseUrl, and the proxy on the way if one is used. */
export interface TransportRoute {
  host: string;
  proxy?: ProxyUrl;
}

export function transportFailure(err: unknown): TransportFailure {
  type Raw = { code?: string; message?: string; cause?: unknown; cert?: { subjectaltname?: string } };
  let e = err as Raw;
  // undici wraps a certificate error met inside a proxy tunnel.
  if (e.code === 'UND_ERR_PRX_TLS' && e.cause) e = e.cause as Raw;
  const status = e.code === 'UND_ERR_ABORTED' ? /^Proxy response \((\d{3})\)/.exec(e.message ?? '')?.[1] : undefined;
  const proxyStatus = status === undefined ? undefined : Number(status);
  return { code: e.code, proxyStatus, certNames: e.cert?.subjectaltname };
}

/** Errors of opening a connection: with a proxy in use, the only connections made are to the proxy. */
const CONNECT_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
];

const via = (proxy: ProxyUrl) => `the proxy ${proxyDisplay(proxy)} (from ${proxy.variable})`;

/** A message for a failure on the way through a proxy; undefined when the proxy is not the cause. */
export function describeProxyFailure(failure: TransportFailure, route: TransportRoute): string | undefined {
  const { proxy } = route;
  if (!proxy) return undefined;
  if (failure.proxyStatus !== undefined) {
    return `${via(proxy)} did not open a tunnel to ${route.host} (HTTP ${failure.proxyStatus})`;
  }
  if (failure.code !== undefined && CONNECT_CODES.includes(failure.code)) {
    return `cannot reach ${via(proxy)}: ${failure.code}`;
  }
  return undefined;
}

const UNTRUSTED = 'REMOTE_TLS_UNTRUSTED';
const TLS_REASONS: Record<string, [code: string, reason: string]> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: [UNTRUSTED, 'it is self-signed'],
  SELF_SIGNED_CERT_IN_CHAIN: [UNTRUSTED, 'its chain ends in a self-signed CA that is not trusted'],
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: [UNTRUSTED, 'it is signed by an unknown CA'],
  UNABLE_TO_GET_ISSUER_CERT: [UNTRUSTED, 'it is signed by an unknown CA'],
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: [UNTRUSTED, 'it is signed by an unknown CA'],
  CERT_UNTRUSTED: [UNTRUSTED, 'it is not trusted'],
  CERT_REJECTED: [UNTRUSTED, 'it is rejected'],
  CERT_SIGNATURE_FAILURE: [UNTRUSTED, 'its signature is not valid'],
  INVALID_CA: [UNTRUSTED, 'a CA of its chain is not valid'],
  INVALID_PURPOSE: [UNTRUSTED, 'it is not meant for a TLS server'],
  CERT_REVOKED: ['REMOTE_TLS_REVOKED', 'it is revoked'],
  ERR_TLS_CERT_ALTNAME_INVALID: ['REMOTE_TLS_NAME_MISMATCH', 'name mismatch, it is for another host'],
  CERT_HAS_EXPIRED: ['REMOTE_TLS_EXPIRED', 'it has expired'],
  CERT_NOT_YET_VALID: ['REMOTE_TLS_EXPIRED', 'it is not valid yet'],
};

const TRUST_HINT =
  'chat-migrate always verifies certificates. If this one is expected (a private or corporate CA, a proxy that ' +
  'inspects TLS, a sandbox started with --tls), trust its CA: NODE_EXTRA_CA_CERTS=/path/ca.pem chat-migrate import';

/** The error that stops the run for a failure the policy calls fatal. */
export function fatalTransportError(failure: TransportFailure, route: TransportRoute): RemoteError {
  const through = route.proxy ? ` through ${via(route.proxy)}` : '';
  if (failure.proxyStatus !== undefined) {
    const hint =
      failure.proxyStatus === 407
        ? `the proxy wants credentials, or refused them: put them in ${route.proxy?.variable ?? 'the proxy URL'} ` +
          '(http://user:password@host:port, special characters percent-encoded)'
        : `the proxy refuses tunnels to ${route.host}: ask its administrators, or list the host in NO_PROXY ` +
          'if it can be reached directly';
    return new RemoteError('REMOTE_PROXY_REFUSED', describeProxyFailure(failure, route)!, { hint });
  }
  if (failure.code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
    return new RemoteError('REMOTE_TLS_PROTOCOL', `${route.host}${through} does not answer in TLS on this port`, {
      hint: 'check baseUrl: it is https:// to a server of plain http (a sandbox started without --tls wants http://)',
    });
  }
  const [code, reason] = TLS_REASONS[failure.code ?? ''] ?? [UNTRUSTED, 'it is refused'];
  const names = failure.certNames ? `; it names ${failure.certNames}` : '';
  const message = `TLS: the certificate of ${route.host}${through} is refused: ${reason} (${failure.code}${names})`;
  const hint =
    code === UNTRUSTED
      ? TRUST_HINT
      : code === 'REMOTE_TLS_NAME_MISMATCH'
        ? 'use the host name the certificate names in baseUrl (a sandbox started with --tls answers to ' +
          '127.0.0.1 and localhost); if the certificate is wrong, the server must be given one for this host'
        : code === 'REMOTE_TLS_EXPIRED'
          ? "check this machine's clock; if it is right, the server's certificate must be renewed"
          : "the server's certificate must be replaced; nothing on this side can accept it";
  return new RemoteError(code, message, { hint });
}

/**
 * A request that got no HTTP answer: timeout, reset, refused, no such host, a refused certificate. The
 * retry policy says which are worth another try.
 * `message` says whom and why in words (`cannot reach api.example.com: no such host (ENOTFOUND)`);
 * `reason` is the short form a retry notice shows (`ENOTFOUND api.example.com`).
 */
export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
    /** The short form a retry notice shows (`ENOTFOUND api.example.com`). */
    readonly reason: string,
    /** The error's code and what TLS or a proxy said, for the retry policy; and where the request went. */
    readonly failure: TransportFailure = {},
    readonly route?: TransportRoute,
  ) {
    super(message);
  }
}

/** Words for the system and undici codes a person meets when the service cannot be reached. */
const CAUSES: Record<string, string> = {
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the name lookup failed for now',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the server closed the connection',
  UND_ERR_CLOSED: 'the connection was closed',
};

/** The server's certificate or TLS setup was not accepted: a retry rarely helps, the words must say so. */
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO)/;

/**
 * A TransportError naming the host and the cause. Built from the error's code, address and port only:
 * undici errors can carry the request, whose headers hold the API key.
 */
export function transportErrorOf(err: unknown, host: string, route?: TransportRoute): TransportError {
  const failure = transportFailure(err);
  // Through a proxy, the proxy's refusal is what the user must read (named without its credentials).
  const viaProxy = route ? describeProxyFailure(failure, route) : undefined;
  if (viaProxy !== undefined) return new TransportError('network', viaProxy, failure.code ?? 'proxy', failure, route);
  // Node tries each address of a name (happy eyeballs) and may throw them all together.
  const first = (err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] : err) as {
    code?: string;
    message?: string;
    address?: string;
    port?: number;
  };
  const code = first.code ?? (err as { code?: string }).code;
  const where = first.address ? `${first.address}${first.port ? `:${first.port}` : ''}` : host;
  if (code === undefined) {
    const text = first.message ?? 'network error';
    return new TransportError('network', `cannot reach ${host}: ${text}`, `${text} (${host})`, failure, route);
  }
  const cause = CAUSES[code] ?? (TLS_CODE.test(code) ? 'the TLS certificate was not accepted' : code);
  const lost = code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED';
  const detail = first.address ? `${code} ${where}` : code;
  const message = `${lost ? 'lost the connection to' : 'cannot reach'} ${host}: ${cause} (${detail})`;
  return new TransportError('network', message, `${code} ${where}`, failure, route);
}
