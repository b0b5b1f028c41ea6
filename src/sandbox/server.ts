import { createHash, timingSafeEqual } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { EntityName } from '../entities/types.js';
import { describeFaults, FaultPlan } from './fault-plan.js';
import { Delays, errorBody, isJsonContentType, readBody, SerialisedJson, sendJson } from './http-io.js';
import { parseImportBody, processRecords } from './import-request.js';
import { LostRecords } from './lose-fault.js';
import { answerReadOrDelete } from './read-dispatch.js';
import { RateWindow, rateHeaders, resetHeaderName, type RateState } from './rate-window.js';
import { RecordStore } from './record-store.js';
import { StatsCollector } from './sandbox-stats.js';
import { resolveSandboxOptions, type ResolvedOptions } from './sandbox-options.js';
import { makeSelfSignedPair, type TlsPair } from './tls-pair.js';
import type { SandboxExchangeRequest, SandboxHandle, SandboxOptions } from './types.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** One running sandbox: the HTTP wiring around the store, the rate window and the fault plan. */
class Sandbox {
  private readonly store: RecordStore;
  private readonly stats: StatsCollector;
  private readonly rate: RateWindow;
  private readonly readRate: RateWindow;
  private readonly plan: FaultPlan;
  private readonly lost: LostRecords;
  private readonly delays = new Delays();
  private readonly keyDigest: Buffer;
  private readonly server: Server;
  private readonly tls?: TlsPair;
  private closing?: Promise<void>;
  /** The request behind each pending answer, kept only while `onExchange` is set. */
  private readonly asked = new WeakMap<ServerResponse, SandboxExchangeRequest>();

  constructor(private readonly config: ResolvedOptions) {
    this.store = new RecordStore(config.keepRecords);
    this.stats = new StatsCollector(config.maxRecordsPerRequest);
    this.rate = new RateWindow(config.requestsPerMinute);
    this.readRate = new RateWindow(config.readRequestsPerMinute);
    this.plan = new FaultPlan(config.faults, config.seed);
    this.lost = new LostRecords(config.faults.loseShare, config.faults.losePattern, config.seed);
    this.seedUsers();
    // Only a digest is kept beside the handlers, so no code path can echo the key itself.
    this.keyDigest = digest(config.apiKey);
    const handler = (req: IncomingMessage, res: ServerResponse) => this.route(req, res);
    // The pair is made (self-signed) before construction, by startSandbox.
    this.tls = typeof config.tls === 'object' ? config.tls : undefined;
    this.server = this.tls ? createTlsServer({ ...this.tls }, handler) : createServer(handler);
    this.server.keepAliveTimeout = 10_000;
    // A client that resets mid-request must cost the sandbox nothing but that socket.
    this.server.on('clientError', (_err, socket) => socket.destroy());
  }

  listen(): Promise<SandboxHandle> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.port, this.config.host, () => {
        this.server.off('error', reject);
        const { port } = this.server.address() as AddressInfo;
        const host = this.config.host.includes(':') ? `[${this.config.host}]` : this.config.host;
        resolve({
          url: `${this.tls ? 'https' : 'http'}://${host}:${port}`,
          port,
          certificate: this.tls?.cert,
          close: () => this.close(),
          stats: () => this.stats.snapshot(),
          records: () => this.store.snapshot(),
          lost: () => this.lost.snapshot(),
          faults: describeFaults(this.config.faults),
        });
      });
    });
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    req.on('error', () => {});
    res.on('error', () => {});
    const pathname = (req.url ?? '/').split('?')[0];
    const { importPath, readPrefix } = this.config;
    const handling = pathname.startsWith('/__sandbox/')
      ? this.handleControl(req, res, pathname)
      : !importPath.test(pathname) && readPrefix.test(pathname) && !pathname.includes('/data_import')
        ? this.handleRead(req, res, pathname)
        : this.handleImport(req, res, pathname);
    handling.catch(() => {
      if (res.headersSent) res.destroy();
      else this.reply(res, 500, errorBody('ERR_EXCEPTION', 'sandbox internal error'));
    });
  }

  /** Test aids: no apiKey, no latency, no faults, not counted in the stats. */
  private async handleControl(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    await readBody(req);
    const action = `${req.method} ${pathname.replace(/\/$/, '')}`;
    if (action === 'GET /__sandbox/stats') return sendJson(res, 200, this.stats.snapshot());
    if (action === 'GET /__sandbox/records') return sendJson(res, 200, this.store.snapshot());
    if (action === 'GET /__sandbox/lost') return sendJson(res, 200, this.lost.snapshot());
    if (action === 'POST /__sandbox/reset') {
      this.reset();
      return sendJson(res, 200, { reset: true });
    }
    sendJson(res, 404, errorBody('ERR_NOT_FOUND', 'control endpoints: GET stats, GET records, GET lost, POST reset'));
  }

  private async handleImport(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const { now } = this.config;
    this.stats.requestArrived(now());
    const read = await readBody(req);
    if (!read.ok && read.reason === 'aborted') return;
    this.observe(req, res, read.ok ? read.body : undefined);
    if (!(await this.delays.wait(this.plan.jitter(this.config.latencyMs)))) return;

    const entity = this.config.importPath.exec(pathname)?.[1] as EntityName | undefined;
    if (!entity) {
      const endpoints = `/${this.config.apiVersionShown}/data_import/{users|groups|members|messages}`;
      const message = `unknown endpoint; the import API is POST ${endpoints}`;
      return this.reply(res, 404, errorBody('ERR_NOT_FOUND', message), this.peekHeaders());
    }
    if (req.method !== 'POST') {
      return this.reply(res, 405, errorBody('ERR_METHOD_NOT_ALLOWED', 'use POST'), {
        ...this.peekHeaders(),
        Allow: 'POST',
      });
    }
    const headers = this.admit(req, res, this.rate);
    if (!headers) return;

    const draw = this.plan.draw();
    if (draw.drop) {
      this.stats.fault('drop');
      req.socket.destroy();
      return;
    }
    if (draw.spurious429) {
      this.stats.fault('spurious429');
      this.rate.releaseLast();
      const retryAfterMs = this.config.spuriousRetryAfterMs;
      const state = this.rate.peek(now());
      return this.reply(res, 429, errorBody('ERR_TOO_MANY_REQUESTS', 'rate limit exceeded'), {
        ...(this.rate.enabled ? this.rateHeaders(state) : {}),
        [resetHeaderName(this.config.rateHeaders)]: String(Math.ceil((now() + retryAfterMs) / 1000)),
        'Retry-After': String(retryAfterMs / 1000),
      });
    }
    if (draw.fail500BeforeStore) {
      this.stats.fault('fail500BeforeStore');
      return this.reply(res, 500, errorBody('ERR_EXCEPTION', 'internal error'), headers);
    }
    if (draw.slow) {
      this.stats.fault('slow');
      // The request is processed after the delay even if the client gave up: like a real
      // overloaded server, a timeout says nothing about whether the records were stored.
      if (!(await this.delays.wait(this.plan.slowMs))) return;
    }

    if (!isJsonContentType(req.headers['content-type'])) {
      const message = 'Content-Type must be application/json';
      return this.reply(res, 415, errorBody('ERR_UNSUPPORTED_MEDIA_TYPE', message), headers);
    }
    if (!read.ok) {
      return this.reply(res, 413, errorBody('ERR_PAYLOAD_TOO_LARGE', 'the body is too large'), headers);
    }
    const parsed = parseImportBody(entity, read.body, this.config.maxRecordsPerRequest, this.stats);
    if (!parsed.ok) return this.reply(res, parsed.status, errorBody(parsed.code, parsed.message), headers);

    const outcome = processRecords(entity, parsed.records, {
      store: this.store,
      stats: this.stats,
      nowSeconds: Math.floor(now() / 1000),
      responseStyle: this.config.responseStyle,
      isPoison: (key) => this.plan.isPoison(key),
      isLost: (entity, id) => this.lost.loses(entity, id),
      refuseOld: this.refuseOldAt(now()),
    });
    if (outcome.poisoned) {
      return this.reply(res, 500, errorBody('ERR_EXCEPTION', outcome.failure ?? 'internal error'), headers);
    }
    if (draw.fail500AfterStore) {
      this.stats.fault('fail500AfterStore');
      return this.reply(res, 500, errorBody('ERR_EXCEPTION', 'internal error'), headers);
    }
    this.reply(res, 200, outcome.body, headers);
  }

  /** GET and DELETE of docs/service-reads.md: the apiKey, the read rate window, then the routes; no faults. */
  private async handleRead(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const { now } = this.config;
    this.stats.requestArrived(now());
    this.stats.readArrived();
    const read = await readBody(req);
    if (!read.ok && read.reason === 'aborted') return;
    this.observe(req, res, read.ok ? read.body : undefined);
    if (!(await this.delays.wait(this.plan.jitter(this.config.latencyMs)))) return;
    const headers = this.admit(req, res, this.readRate);
    if (!headers) return;
    const answer = answerReadOrDelete(this.store, this.config, req, pathname, read.ok ? read.body : undefined);
    if (answer?.deleted) this.stats.record(answer.deleted, 'deleted');
    if (answer) return this.reply(res, answer.status, answer.body, headers);
    const message = `unknown endpoint ${req.method} ${pathname}; see read-api: users, groups, messages`;
    this.reply(res, 404, errorBody('ERR_API_NOT_FOUND', message), headers);
  }

  /** Returns the auth error code, or undefined when the key is right. */
  /** Where refuseBeyondRetention's window starts at `nowMs`, as read-dispatch.ts reckons it; undefined when off. */
  private refuseOldAt(nowMs: number): { beforeSec: number; days: number } | undefined {
    const { refuseBeyondRetention, retentionDays } = this.config;
    if (!refuseBeyondRetention) return undefined;
    return { beforeSec: Math.floor(nowMs / 1000) - retentionDays * 86_400, days: retentionDays };
  }

  private checkApiKey(header: string | string[] | undefined): string | undefined {
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined || key.trim() === '') return 'AUTH_ERR_EMPTY_APIKEY';
    return timingSafeEqual(digest(key), this.keyDigest) ? undefined : 'AUTH_ERR_APIKEY_NOT_FOUND';
  }

  /** Rate headers for answers given before the window is consulted (404, 401). */
  private peekHeaders(window: RateWindow = this.rate): Record<string, string> {
    return window.enabled ? this.rateHeaders(window.peek(this.config.now())) : {};
  }

  /**
   * The apiKey, then a place in the request's rate window (imports' or reads'): the rate headers to
   * answer with, or undefined once a 401 or a 429 has been answered.
   */
  private admit(req: IncomingMessage, res: ServerResponse, window: RateWindow): Record<string, string> | undefined {
    const authCode = this.checkApiKey(req.headers.apikey);
    if (authCode) {
      this.reply(res, 401, errorBody(authCode, 'the apiKey header is missing or not valid'), this.peekHeaders(window));
      return undefined;
    }
    if (!window.enabled) return {};
    const { accepted, state } = window.tryAcquire(this.config.now());
    if (!accepted) {
      this.stats.rateLimited();
      const retry = { ...this.rateHeaders(state), 'Retry-After': String(state.retryAfter) };
      this.reply(res, 429, errorBody('ERR_TOO_MANY_REQUESTS', 'rate limit exceeded'), retry);
      return undefined;
    }
    return this.rateHeaders(state);
  }

  private rateHeaders(state: RateState): Record<string, string> {
    return rateHeaders(state, this.config.rateHeaders);
  }

  private reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.stats.answered(status);
    sendJson(res, status, body, headers);
    const request = this.asked.get(res);
    if (request === undefined) return;
    this.asked.delete(res);
    this.config.onExchange?.(request, { status, body: body instanceof SerialisedJson ? JSON.parse(body.text) : body });
  }

  /** Keeps the request for `onExchange`, when one is set. */
  private observe(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void {
    if (this.config.onExchange === undefined) return;
    this.asked.set(res, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
  }

  /** The app's own users, there before any import, and again after a reset. */
  private seedUsers(): void {
    // Keyed lower-cased, as the service stores ids.
    for (const user of this.config.seedUsers) this.store.add('users', (user.uid as string).toLowerCase(), user);
  }

  private reset(): void {
    this.store.clear();
    this.seedUsers();
    this.stats.reset();
    this.rate.reset();
    this.readRate.reset();
    this.plan.reset();
    this.lost.reset();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      this.delays.cancelAll();
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeAllConnections();
      });
      if (this.config.dumpFile) {
        // The stored records are someone's chat export: 0600, like every file the tool creates.
        await writeFile(this.config.dumpFile, JSON.stringify(this.store.snapshot()), { encoding: 'utf8', mode: 0o600 });
      }
    })();
    return this.closing;
  }
}

/** Starts the sandbox and resolves once it listens; options are checked first (`ConfigError`). */
export async function startSandbox(options: SandboxOptions): Promise<SandboxHandle> {
  const config = resolveSandboxOptions(options);
  if (config.tls === 'self-signed') config.tls = await makeSelfSignedPair();
  return new Sandbox(config).listen();
}
