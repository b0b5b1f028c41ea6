/**
 * The HTTP server of a live source's fake: one FakeSource's routes over one generated world, behind the
 * source's credentials check, a per-minute budget answered in the source's own 429, and the sandbox's
 * faults. All its state is its own (the world with what its source keeps there, the counters), so tests start
 * as many as they like in their own process. Kept light: the bench pulls a million messages through it
 * at thousands of requests a minute.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describeFaults, FaultPlan, mulberry32 } from '../../../dist/sandbox/fault-plan.js';
import { Delays, readBody } from '../../../dist/sandbox/http-io.js';
import { RateWindow } from '../../../dist/sandbox/rate-window.js';
import type { ResolvedFaults } from '../../../dist/sandbox/sandbox-options.js';
import { makeSelfSignedPair, type TlsPair } from '../../../dist/sandbox/tls-pair.js';
import { answerControl, type FakeStats } from './fake-control.js';
import { GeneratedWorld, type FakeWorldOptions } from './fake-world.js';
import { type SpecCheck, specCheckFor } from './spec-check.js';
import type { FakeContext, FakeReply, FakeRequest, FakeSource } from './types.js';

export interface FakeServerOptions {
  source: FakeSource;
  /** Sizes and seed of the generated world (defaults: 50 users, 20 channels, 3,000 messages, seed 1). */
  world?: FakeWorldOptions;
  host?: string;
  port?: number;
  /** The source's budget: requests beyond it in a sliding minute get `rateLimited`. 0: unlimited. */
  requestsPerMinute?: number;
  latencyMs?: number;
  /** The fault dice's seed (default the world's). */
  seed?: number;
  /**
   * `sourceError`: the source's own transient failure in its own shape (its `transientError`, such as
   * Slack's HTTP 200 `ok: false` `internal_error`), drawn from dice of its own so the others do not move.
   */
  faults?: { spurious429?: number; drop?: number; fail500Before?: number; sourceError?: number };
  /** The wait a spurious 429 asks for (default 1000): a test sets 0 rather than wait for it. */
  retryAfterMs?: number;
  /** How long signed media links live (Stream's CDN, Twilio's temporary links); each source has a default. */
  linkTtlMs?: number;
  tls?: TlsPair | 'self-signed';
  /** The clock of the budget, of links' expiry and of rate headers (default Date.now). */
  now?: () => number;
  /**
   * Check each request and JSON answer against the vendor's pinned OpenAPI document (spec-check.ts) and
   * keep what does not follow it for `violations()`. The tests' `startFake` turns it on; the bench does not.
   */
  spec?: boolean;
}

export interface FakeServerHandle {
  url: string;
  port: number;
  source: string;
  /** The environment a client sets to reach the fake (the source's `credentials(url)`). */
  env: Record<string, string>;
  world: GeneratedWorld;
  certificate?: string;
  /** The faults injected, one phrase each (`spurious 429 5%`). */
  faults: string[];
  stats(): FakeStats;
  /**
   * Refuses the credentials after `requests` more source requests, as a revoked token would, so a test
   * stops a pull mid-way without killing a process (the pull stops at a refusal and resumes later);
   * undefined answers them again.
   */
  refuseAfter(requests: number | undefined): void;
  /** With `spec`: each request or answer out of the vendor's document so far, one line each. */
  violations(): string[];
  close(): Promise<void>;
}

type Counters = Omit<FakeStats, 'messages'>;

const MAX_PATHS = 1000;
const OTHER_PATHS = '(other paths)';

function emptyCounters(): Counters {
  return {
    requests: 0,
    rateLimited: 0,
    unauthorized: 0,
    byPath: {},
    byStatus: {},
    faults: { drop: 0, spurious429: 0, fail500Before: 0, sourceError: 0 },
    media: 0,
  };
}

/** The request's body: JSON or a form parsed (a repeated form key gives an array), else its text. */
function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  // `curl -d '{...}'` says form but sends JSON: a form never starts with a brace.
  if (type === 'application/x-www-form-urlencoded' && !text.trimStart().startsWith('{')) {
    const out: Record<string, string | string[]> = {};
    for (const [key, value] of new URLSearchParams(text)) {
      const had = out[key];
      out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    return out;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function send(res: ServerResponse, reply: FakeReply, extra: Record<string, string>): void {
  if (res.destroyed || res.headersSent) return;
  const { body } = reply;
  const raw = typeof body === 'string' || Buffer.isBuffer(body);
  const bytes = raw ? Buffer.from(body) : Buffer.from(body === undefined ? '' : JSON.stringify(body), 'utf8');
  const type = Buffer.isBuffer(body)
    ? 'application/octet-stream'
    : typeof body === 'string'
      ? 'text/plain; charset=utf-8'
      : 'application/json; charset=utf-8';
  res.writeHead(reply.status, {
    'Content-Type': type,
    ...extra,
    ...reply.headers,
    'Content-Length': String(bytes.length),
  });
  res.end(bytes);
}

class FakeServer {
  private readonly world: GeneratedWorld;
  private readonly budget: RateWindow;
  private readonly plan: FaultPlan;
  private readonly sourceErrorDice: () => number;
  private readonly faults: ResolvedFaults;
  private readonly delays = new Delays();
  private readonly server: Server;
  private readonly now: () => number;
  private counters = emptyCounters();
  /** Source requests past this count are refused (refuseAfter). */
  private refusedPast = Number.POSITIVE_INFINITY;
  /** Distinct paths in `byPath`, without `(other paths)`. */
  private paths = 0;
  private closing?: Promise<void>;
  /** `host:port` once listening. */
  private origin = 'localhost';
  private readonly context: FakeContext;
  private readonly violations = new Set<string>();

  constructor(
    private readonly options: FakeServerOptions,
    private readonly tls?: TlsPair,
    private readonly spec?: SpecCheck,
  ) {
    this.world = new GeneratedWorld({ clock: options.now, ...options.world });
    this.now = options.now ?? Date.now;
    this.budget = new RateWindow(options.requestsPerMinute ?? 0);
    const f = options.faults ?? {};
    this.faults = {
      dropConnection: f.drop ?? 0,
      spurious429: f.spurious429 ?? 0,
      fail500BeforeStore: f.fail500Before ?? 0,
      fail500AfterStore: 0,
      slowRate: 0,
      slowMs: 0,
      loseShare: 0,
    };
    this.plan = new FaultPlan(this.faults, options.seed ?? options.world?.seed ?? 1);
    this.sourceErrorDice = mulberry32((options.seed ?? options.world?.seed ?? 1) ^ 0x5bd1e995);
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    this.server = tls ? createTlsServer({ ...tls }, handler) : createServer(handler);
    this.server.keepAliveTimeout = 10_000;
    this.server.on('clientError', (_err, socket) => socket.destroy());
    const server = this;
    this.context = {
      world: this.world,
      get origin() {
        return `${tls ? 'https' : 'http'}://${server.origin}`;
      },
      now: this.now,
      linkTtlMs: options.linkTtlMs,
    };
  }

  listen(): Promise<FakeServerHandle> {
    const { host = '127.0.0.1', port = 0, source } = this.options;
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const bound = (this.server.address() as AddressInfo).port;
        this.origin = `${host.includes(':') ? `[${host}]` : host}:${bound}`;
        const url = `${this.tls ? 'https' : 'http'}://${this.origin}`;
        resolve({
          url,
          port: bound,
          source: source.name,
          env: source.credentials(this.context),
          world: this.world,
          certificate: this.tls?.cert,
          faults: [
            ...describeFaults(this.faults),
            ...(this.options.faults?.sourceError ? [`source errors ${this.options.faults.sourceError * 100}%`] : []),
          ],
          stats: () => this.stats(),
          refuseAfter: (requests) => {
            this.refusedPast = requests === undefined ? Number.POSITIVE_INFINITY : this.counters.requests + requests;
          },
          violations: () => [...this.violations].sort(),
          close: () => this.close(),
        });
      });
    });
  }

  private stats(): FakeStats {
    return { ...structuredClone(this.counters), messages: this.world.totalMessages() };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.on('error', () => {});
    res.on('error', () => {});
    this.answer(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else this.reply(res, { status: 500, body: { error: 'fake server internal error' } });
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const read = await readBody(req);
    if (!read.ok && read.reason === 'aborted') return;
    const url = this.requestUrl(req);
    const method = req.method ?? 'GET';
    const body = read.ok ? parseBody(read.body, req.headers['content-type']) : undefined;
    if (url.pathname.startsWith('/__fake/')) {
      if (url.pathname.startsWith('/__fake/media/')) this.counters.media++;
      const control = answerControl(method, url.pathname, body, this.world, () => this.stats());
      if (control) return this.reply(res, control);
    }
    const c = this.counters;
    const serial = ++c.requests;
    // Bounded: a source whose paths name each message must not grow the stats with a million keys.
    const seen = c.byPath[url.pathname];
    if (seen !== undefined) c.byPath[url.pathname] = seen + 1;
    else if (this.paths < MAX_PATHS) {
      c.byPath[url.pathname] = 1;
      this.paths++;
    } else c.byPath[OTHER_PATHS] = (c.byPath[OTHER_PATHS] ?? 0) + 1;
    if (!(await this.delays.wait(this.plan.jitter(this.options.latencyMs ?? 0)))) return;
    const request: FakeRequest = { method, url, headers: req.headers, body };
    const { source } = this.options;
    if (serial > this.refusedPast || !source.authorized(request, this.context)) {
      c.unauthorized++;
      return this.reply(res, source.unauthorized(), {}, request);
    }
    const limit = this.options.requestsPerMinute ?? 0;
    let headers: Record<string, string> = {};
    if (this.budget.enabled) {
      const { accepted, state } = this.budget.tryAcquire(this.now());
      headers = source.rateHeaders?.(state.remaining, limit, state.resetAt * 1000, this.context) ?? {};
      if (!accepted) {
        c.rateLimited++;
        return this.reply(res, source.rateLimited(state.retryAfterMs, limit, this.context), headers, request);
      }
    }
    const draw = this.plan.draw();
    if (draw.drop) {
      c.faults.drop++;
      this.check(request, undefined);
      req.socket.destroy();
      return;
    }
    if (draw.spurious429) {
      c.faults.spurious429++;
      // Like the sandbox's: a 429 the client cannot tell from a real one, and it costs no budget.
      this.budget.releaseLast();
      const wait = this.options.retryAfterMs ?? 1000;
      return this.reply(res, source.rateLimited(wait, limit, this.context), headers, request);
    }
    if (draw.fail500BeforeStore) {
      c.faults.fail500Before++;
      // The sandbox's fault, in no vendor's shape: only the request is checked.
      this.check(request, undefined);
      return this.reply(res, { status: 500, body: { error: 'internal error (injected)' } }, headers);
    }
    const sourceError = this.options.faults?.sourceError ?? 0;
    if (sourceError > 0 && source.transientError && this.sourceErrorDice() < sourceError) {
      const reply = source.transientError(request, this.sourceErrorDice(), this.context);
      if (reply !== undefined) {
        c.faults.sourceError++;
        return this.reply(res, reply, headers);
      }
    }
    const reply = await source.route(request, this.context);
    this.reply(res, reply ?? { status: 404, body: { error: `no route ${method} ${url.pathname}` } }, headers, request);
  }

  /**
   * The URL as the client asked for it, its origin from the Host header (the listening address without
   * one), so a source builds absolute next-page links on the origin the client trusts.
   */
  private requestUrl(req: IncomingMessage): URL {
    const scheme = this.tls ? 'https' : 'http';
    // Joined, not resolved: a target such as `//other/x` must stay a path on this origin.
    const target = req.url?.startsWith('/') ? req.url : '/';
    try {
      return new URL(`${scheme}://${req.headers.host ?? this.origin}${target}`);
    } catch {
      return new URL(`${scheme}://${this.origin}${target}`);
    }
  }

  /** Sends the answer; one to a source request (`request`) is checked against the vendor's document. */
  private reply(
    res: ServerResponse,
    reply: FakeReply,
    headers: Record<string, string> = {},
    request?: FakeRequest,
  ): void {
    this.counters.byStatus[reply.status] = (this.counters.byStatus[reply.status] ?? 0) + 1;
    if (request !== undefined) this.check(request, reply);
    send(res, reply, headers);
  }

  private check(request: FakeRequest, reply: FakeReply | undefined): void {
    if (this.spec === undefined) return;
    // Bounded like byPath; lines name the operation, not the URL, so a page wrong each time is one line.
    for (const line of this.spec.check(request, reply)) if (this.violations.size < MAX_PATHS) this.violations.add(line);
  }

  private close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.delays.cancelAll();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    return this.closing;
  }
}

/** Starts a fake of a live source; resolves once it listens. */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServerHandle> {
  const tls = options.tls === 'self-signed' ? await makeSelfSignedPair() : options.tls;
  const spec = options.spec ? await specCheckFor(options.source.name) : undefined;
  return new FakeServer(options, tls, spec).listen();
}
