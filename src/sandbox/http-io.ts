import type { IncomingMessage, ServerResponse } from 'node:http';

/** Generous for 50 records with user/group details; a body above it is refused, not buffered. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export type BodyRead = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the whole body. An oversize body is drained rather than cut off, so the connection stays
 * usable for keep-alive and the client reads a 413 instead of a reset.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(tooLarge ? { ok: false, reason: 'too-large' } : { ok: true, body: Buffer.concat(chunks) }),
    );
    req.on('error', () => resolve({ ok: false, reason: 'aborted' }));
    req.on('close', () => {
      if (!req.complete) resolve({ ok: false, reason: 'aborted' });
    });
  });
}

export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** A body already serialised, passed through `sendJson` as it is. */
export class SerialisedJson {
  constructor(readonly text: string) {}
}

/** Always with Content-Length, so keep-alive clients can reuse the connection. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  const text = body instanceof SerialisedJson ? body.text : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text, 'utf8')),
  });
  res.end(text);
}

/** `application/json`, with or without parameters such as `charset`. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(';')[0].trim().toLowerCase() === 'application/json';
}

/**
 * Timers that `close()` can cut short: a slow fault of 30 s must not hold the test process open.
 * Waiters resolve `false` when cancelled, telling the handler to give up.
 */
export class Delays {
  private pending = new Map<NodeJS.Timeout, (done: boolean) => void>();
  private cancelled = false;

  wait(ms: number): Promise<boolean> {
    if (this.cancelled) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, ms);
      this.pending.set(timer, resolve);
    });
  }

  cancelAll(): void {
    this.cancelled = true;
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve(false);
    }
    this.pending.clear();
  }
}
