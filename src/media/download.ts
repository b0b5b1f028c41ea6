/**
 * One file to a temp file, as a stream: hashed (sha256) and counted on the way, so memory stays flat
 * and the content-addressed key is known before the upload. Redirects are followed by hand, each hop
 * checked like the first (allow-list, address). The host's header goes only to the attachment URL's
 * origin (scheme, host, port): a redirect anywhere else, even to http:// on the same name, goes
 * without it, as browsers drop Authorization on a cross-origin redirect (Fetch standard, HTTP-redirect
 * fetch). Failures are answers (`{ ok: false, reason }`), never exceptions.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { InterruptedError, MigrationError, RemoteError } from '../errors.js';
import type { Clock } from '../clock.js';
import { RateLimiter } from '../http/rate-limiter.js';
import type { RetryPolicy } from '../http/retry-policy.js';
import { userAgentFor } from '../http/user-agent.js';
import { type Answer, type AnswerKind, retryingRequest, type TryLoop, type Verdict } from '../http/retrying-request.js';
import type { Bandwidth } from './bandwidth.js';
import type { HostRules } from './host-rules.js';
import { checkHost, PRIVATE_ADDRESS_CODE } from './safe-address.js';
import { type DeclaredType, keepHead, webPageReason } from './web-page.js';

/** A file's bytes on disk with what was learnt reading them. */
export interface FileCopy {
  path: string;
  /** A temp file of this run, removed once uploaded. */
  temp: boolean;
  size: number;
  sha256: string;
  /** The server's Content-Type, when it named one. */
  mimeType?: string;
}

export type Fetched = { ok: true; file: FileCopy } | { ok: false; reason: string };

export interface DownloadContext {
  dispatcher: Dispatcher;
  policy: RetryPolicy;
  clock: Clock;
  rules: HostRules;
  allowPrivate: ReadonlySet<string>;
  bandwidth: Bandwidth;
  maxFileBytes: number;
  signal: AbortSignal;
  /**
   * A limiter per media host, learning from its answers: a CDN that asks for a pause (429, rate headers)
   * holds back its own files only. Each starts fast: media hosts state no rate.
   */
  limiters: Map<string, RateLimiter>;
}

const MEDIA_HOST_RATE = 6000;

class TooLarge extends Error {}

/** Counts and hashes what passes; fails as soon as more than `max` bytes came (a lying Content-Length). */
function measure(hash: Hash, max: number, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      counted.bytes += chunk.length;
      if (counted.bytes > max) return done(new TooLarge());
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

const tooLarge = (max: number) => `larger than media.maxFileBytes (${max} bytes)`;
const errorCode = (err: unknown): string | undefined => {
  const e = err as { code?: string; cause?: { code?: string } } | undefined;
  return e?.code ?? e?.cause?.code;
};

/**
 * Downloads `url` into `tempPath`. `declared` is what the attachment says it is: a web page where
 * it says otherwise (a sign-in page) is refused (web-page.ts).
 */
export async function downloadFile(
  url: string,
  tempPath: string,
  ctx: DownloadContext,
  declared?: DeclaredType,
): Promise<Fetched> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  const origin = target.origin;
  // Once a redirect left the origin the header stays off, as in a browser: the hop chose where it goes.
  let withHeader = true;
  for (let hop = 0; hop <= ctx.policy.maxRedirects; hop++) {
    withHeader &&= target.origin === origin;
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      return { ok: false, reason: `${target.protocol} URLs are not fetched` };
    if (!ctx.rules.allows(target.hostname))
      return { ok: false, reason: `${hop > 0 ? 'redirect to ' : ''}${target.hostname} is not on media.hosts` };
    const answer = await getOnce(target, tempPath, ctx, withHeader, { declared, first: new URL(url) });
    if (answer.kind === 'redirect') {
      target = answer.to;
      continue;
    }
    return answer.result;
  }
  return { ok: false, reason: `more than ${ctx.policy.maxRedirects} redirects` };
}

type Hop = { kind: 'redirect'; to: URL } | { kind: 'done'; result: Fetched };

/** An answer of a media host, its body still to read. */
interface FileAnswer extends Answer {
  res: Dispatcher.ResponseData;
}

/**
 * One URL through the one try loop (http/retrying-request.ts): a redirect, the file, or why not.
 * Rate-limited and server errors are tried again (at most `downloadRetries` times, never sooner than
 * Retry-After asks), each answer tells the host's limiter; an untrusted certificate, a name that does
 * not resolve or a spent budget end this file only.
 */
async function getOnce(
  target: URL,
  tempPath: string,
  ctx: DownloadContext,
  withHeader: boolean,
  /** What the attachment says it is, and the URL it named (a sign-in page comes after a redirect). */
  expected: { declared: DeclaredType | undefined; first: URL },
): Promise<Hop> {
  const { policy } = ctx;
  const fail = (reason: string): Hop => ({ kind: 'done', result: { ok: false, reason } });
  try {
    await checkHost(target.hostname, ctx.allowPrivate);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  const header = withHeader ? ctx.rules.headerFor(target.hostname) : undefined;
  // Files come from the sources' own hosts and CDNs: they are told what asks, as the pull's requests do.
  const headers = { 'user-agent': userAgentFor('media'), ...(header ? { [header.name]: header.value } : {}) };
  let limiter = ctx.limiters.get(target.host);
  if (!limiter) ctx.limiters.set(target.host, (limiter = new RateLimiter(MEDIA_HOST_RATE, ctx.clock)));
  const loop: TryLoop = {
    limiter,
    policy: { ...policy, retries: policy.downloadRetries },
    clock: ctx.clock,
    stop: ctx.signal,
  };
  const send = async (signal: AbortSignal): Promise<FileAnswer> => {
    try {
      const res = await request(target, { dispatcher: ctx.dispatcher, method: 'GET', headers, signal });
      return { status: res.statusCode, headers: res.headers, res };
    } catch (err) {
      // The address check's refusal is final: no try can make the address public.
      if (errorCode(err) === PRIVATE_ADDRESS_CODE) throw new RemoteError(PRIVATE_ADDRESS_CODE, (err as Error).message);
      throw err;
    }
  };
  const judge = async ({ res, status }: FileAnswer, kind: AnswerKind): Promise<Verdict<Hop>> => {
    if (policy.redirectStatuses.includes(status)) {
      await res.body.dump();
      const location = res.headers.location;
      if (typeof location !== 'string') return { done: fail(`HTTP ${status} without a Location`) };
      try {
        return { done: { kind: 'redirect', to: new URL(location, target) } };
      } catch {
        return { done: fail(`HTTP ${status} to a Location that is not a URL`) };
      }
    }
    if (status !== 200) {
      await res.body.dump().catch(() => undefined);
      // A media host's 401 or 403 is about this file, not the service's key.
      if (kind === 'rate-limited' || kind === 'server-error') return undefined;
      return { done: fail(`HTTP ${status}`) };
    }
    const length = Number(res.headers['content-length']);
    if (Number.isFinite(length) && length > ctx.maxFileBytes) {
      res.body.destroy();
      return { done: fail(tooLarge(ctx.maxFileBytes)) };
    }
    const type = res.headers['content-type'];
    const mimeType = typeof type === 'string' ? type.split(';')[0].trim().toLowerCase() : undefined;
    const hash = createHash('sha256');
    const counted = { bytes: 0 };
    const first = { head: Buffer.alloc(0) };
    try {
      await pipeline(
        res.body,
        ctx.bandwidth.pace(ctx.signal),
        measure(hash, ctx.maxFileBytes, counted),
        keepHead(first),
        createWriteStream(tempPath, { mode: 0o600 }),
        { signal: ctx.signal },
      );
    } catch (err) {
      await rm(tempPath, { force: true });
      if (ctx.signal.aborted) throw err;
      if (err instanceof TooLarge) return { done: fail(tooLarge(ctx.maxFileBytes)) };
      return { retry: errorCode(err) ?? 'the download broke off' };
    }
    const page = webPageReason([expected.first, target], mimeType, first.head, expected.declared);
    if (page !== undefined) {
      await rm(tempPath, { force: true });
      return { done: fail(page) };
    }
    const file: FileCopy = { path: tempPath, temp: true, size: counted.bytes, sha256: hash.digest('hex') };
    if (mimeType?.includes('/')) file.mimeType = mimeType;
    return { done: { kind: 'done', result: { ok: true, file } } };
  };
  try {
    return await retryingRequest(loop, {
      subject: 'download',
      route: { host: target.host },
      send,
      judge,
      unresolvedHint: 'check the URL',
    });
  } catch (err) {
    if (ctx.signal.aborted || err instanceof InterruptedError || !(err instanceof MigrationError)) throw err;
    return fail(err.message);
  }
}

/** A file of the export: read once to hash and size it; uploaded from where it is. */
export async function hashLocalFile(
  path: string,
  ctx: Pick<DownloadContext, 'maxFileBytes' | 'signal'>,
): Promise<Fetched> {
  const hash = createHash('sha256');
  const counted = { bytes: 0 };
  try {
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    await pipeline(createReadStream(path), measure(hash, ctx.maxFileBytes, counted), sink, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    if (err instanceof TooLarge) return { ok: false, reason: tooLarge(ctx.maxFileBytes) };
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'no such file in the export' : (code ?? String(err)) };
  }
  return { ok: true, file: { path, temp: false, size: counted.bytes, sha256: hash.digest('hex') } };
}
