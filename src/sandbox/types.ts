import type { EntityName, JsonObject } from '../entities/types.js';

/**
 * Failure modes the sandbox can inject. Each probability is drawn per accepted request from the
 * seeded PRNG, so a run with the same seed and request order meets the same faults.
 */
export interface SandboxFaults {
  /** Probability 0..1: answer 500 `ERR_EXCEPTION` without storing anything. */
  fail500BeforeStore?: number;
  /** Probability: store every valid record of the request, then answer 500 (the ambiguous case). */
  fail500AfterStore?: number;
  /** Probability: destroy the socket without any response. */
  dropConnection?: number;
  /** Probability: answer 429 `ERR_TOO_MANY_REQUESTS` with `Retry-After: 1` though under the rate. */
  spurious429?: number;
  /**
   * The wait a spurious 429 asks for, in ms; default 1000 (`Retry-After: 1`). Sent in seconds, with a
   * fraction below a whole second (`0.02`), which the tool reads: tests pass 0 or a few ms.
   */
  retryAfterMs?: number;
  /** Probability: wait `slowMs` before processing and answering (meant to exceed client timeouts). */
  slowRate?: number;
  /** Delay of a slow request; default 30 000 ms. */
  slowMs?: number;
  /**
   * Regex source. A request holding a record whose key matches stores the records before it (in body
   * order) and then answers 500 `ERR_EXCEPTION`, every time: the field report of one bad record
   * failing the whole request.
   */
  poisonIdPattern?: string;
  /**
   * Share 0..1 of accepted records answered `success` and not stored, chosen by a seeded hash of the
   * entity and lower-cased id (not by arrival order); each record is lost the first time only.
   */
  loseShare?: number;
  /** Regex source: accepted records whose lower-cased id matches are lost (the first time), as `loseShare`. */
  losePattern?: string;
}

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  apiKey: string;
  /** Sliding 60 s window of accepted requests; 0 or undefined = unlimited. */
  requestsPerMinute?: number;
  /** Base latency of each answer, with a small seeded jitter (the bench uses 150). */
  latencyMs?: number;
  /** Default 50, the hosted service's limit. */
  maxRecordsPerRequest?: number;
  faults?: SandboxFaults;
  /** Seed of the PRNG behind faults and jitter; default 1. */
  seed?: number;
  /** Default true; false keeps only id sets (million-record benches). */
  keepRecords?: boolean;
  /** 'flat' (the contract's form, default) or 'nested' (the vendor examples' double `data`). */
  responseStyle?: 'flat' | 'nested';
  /** When set, `close()` writes the records dump (same as `GET /__sandbox/records`) there. */
  dumpFile?: string;
  /** Millisecond clock, for tests. */
  now?: () => number;
  /** Serve HTTPS: with this certificate and key (PEM), or a self-signed pair made at start. */
  tls?: { cert: string; key: string } | 'self-signed';
  /** `dashed` (X-Rate-Limit*, default) or `compact` (X-RateLimit-*, the vendor's newest page). */
  rateHeaders?: 'dashed' | 'compact';
  /** Serve only this version segment (e.g. `v3`); default both `v3.0` and `v3`. */
  apiVersion?: string;
  /** Reads answer messages without `muid` (the read contract does not promise it). */
  readsWithoutMuid?: boolean;
  /** Group reads leave `metadata` out (the read reference does not show whether they echo it). */
  groupReadsWithoutMetadata?: boolean;
  /** Messages older than this many days (by sentAt) are accepted by imports, never returned by reads; 0 = keep all. */
  retentionDays?: number;
  /**
   * With `retentionDays`: an imported message older than the window stores the records before it (in
   * body order) and answers 500 `ERR_EXCEPTION` "Messages older than N days cannot be imported", as the
   * vendor's migration guides say the service does, instead of being accepted and hidden.
   */
  refuseBeyondRetention?: boolean;
  /** Sliding 60 s window of read and delete requests; 0 or undefined = unlimited. */
  readRequestsPerMinute?: number;
  /**
   * Users the app has before any import (each with a `uid`): a user-map rehearsal maps export users
   * onto them. Stored as they are, not counted as requests.
   */
  seedUsers?: JsonObject[];
  /**
   * Told of each answered request but the control routes' (tests hold the exchanges to the vendor's
   * OpenAPI documents with it); unset, nothing is kept or parsed for it.
   */
  onExchange?: (request: SandboxExchangeRequest, reply: SandboxExchangeReply) => void;
}

/** A request as the sandbox read it: path with query, headers as Node gives them, the raw body. */
export interface SandboxExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Buffer;
}

/** What the sandbox answered: status and the JSON body (parsed). */
export interface SandboxExchangeReply {
  status: number;
  body: unknown;
}

export type FaultName =
  | 'drop'
  | 'spurious429'
  | 'fail500BeforeStore'
  | 'fail500AfterStore'
  | 'slow'
  | 'poison'
  | 'beyondRetention';

export interface EntityStats {
  stored: number;
  alreadyExists: number;
  /** Records answered success and not stored (the lost-records fault). */
  lost: number;
  /** Records refused by per-record validation (already-exists not included). */
  rejected: number;
  /** Records a DELETE removed (a user deactivated without `permanent` included). */
  deleted: number;
  /** Requests whose body was a well-formed import body within the record limit. */
  requests: number;
  /** Of those, requests holding exactly `maxRecordsPerRequest` records. */
  fullRequests: number;
  recordsReceived: number;
}

export interface SandboxStats {
  /** Every request to a non-control path, whatever its fate (dropped ones included). */
  requests: number;
  /** Of those, the reads and deletes (GET and DELETE of docs/service-reads.md). */
  readRequests: number;
  /** Count per HTTP status answered; dropped requests have none. */
  byStatus: Record<string, number>;
  faults: Record<FaultName, number>;
  perEntity: Record<EntityName, EntityStats>;
  /** Genuine 429s from the rate window (spurious ones are in `faults.spurious429`). */
  rateLimited: number;
  /** `now()` of the first and last request; null before any. */
  firstRequestAt: number | null;
  lastRequestAt: number | null;
  /** Largest record count seen in a well-formed body, over-limit bodies included. */
  maxRecordsInARequest: number;
}

/** Stored records by lower-cased id; values are `true` when `keepRecords` is false. */
export type SandboxRecords = Record<EntityName, Record<string, JsonObject | true>>;

export interface SandboxHandle {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:43123`. */
  url: string;
  port: number;
  /** The certificate served (PEM) over HTTPS: a client trusts it to reach a self-signed sandbox. */
  certificate?: string;
  close(): Promise<void>;
  stats(): SandboxStats;
  records(): SandboxRecords;
  /** Ids of the records the lost-records fault answered success for and did not store, per entity. */
  lost(): Record<EntityName, string[]>;
  /** The faults it injects, one phrase each (empty for none), as its banner lists them. */
  faults: string[];
}
