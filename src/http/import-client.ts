import type { KeyCheck } from './key-check.js';
import { type RateSignals, rateSignalsOf } from './rate-limiter.js';
import { sendToService, type ServiceAnswer } from './retrying-request.js';
import { type EndpointOptions, openEndpoint, type ServiceEndpoint } from './service-endpoint.js';
import type { TransportRoute } from './transport-errors.js';

/** What one POST came back with. The client knows nothing of records: it moves bytes and reads headers. */
export interface ImportResponse extends ServiceAnswer {
  rate: RateSignals;
}

export interface ImportClientOptions extends EndpointOptions {
  /** The run's check of its key, shared with its other clients: the try loop asks it (key-check.ts). */
  keyCheck?: KeyCheck;
}

/**
 * One keep-alive dispatcher (dispatcher.ts: proxies, TLS) for every request of the run. Retries live a
 * level up, in the one try loop (retrying-request.ts) as the batch sender drives it: it knows a POST of
 * already-imported records is safe to repeat (undici's own retry skips POST).
 */
export class ImportClient {
  private readonly at: ServiceEndpoint;
  readonly keyCheck?: KeyCheck;

  constructor(options: ImportClientOptions) {
    this.at = openEndpoint(options);
    this.keyCheck = options.keyCheck;
  }

  /** POSTs a serialised body to `data_import/<endpoint>`. Throws when no answer came (the try loop words it). */
  async post(endpoint: string, body: Buffer, signal?: AbortSignal): Promise<ImportResponse> {
    // The pool's headersTimeout (until the answer's headers) and bodyTimeout (between its chunks) end a
    // stalled request: a per-request timeout signal cost more than the rest of the client's work at
    // thousands of requests a second.
    const path = `${this.at.prefix}data_import/${endpoint}`;
    const answer = await sendToService(this.at, { method: 'POST', path, body }, signal);
    return { ...answer, rate: rateSignalsOf(answer.status, answer.headers) };
  }

  /** Where the requests go, as errors name it. */
  get route(): TransportRoute {
    return this.at.route;
  }

  get timeoutMs(): number {
    return this.at.timeoutMs;
  }

  async close(): Promise<void> {
    await this.at.dispatcher.close();
  }

  /** Drops connections at once (second Ctrl+C). */
  async destroy(): Promise<void> {
    await this.at.dispatcher.destroy();
  }
}
