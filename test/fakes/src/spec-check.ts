/**
 * The vendors' own API descriptions as the tests' oracle: each request a fake receives is checked against
 * its vendor's pinned OpenAPI document (test/vendor-specs/, README there), and each JSON answer against the
 * response schema, by openapi-backend (one validator per operation, compiled when first used and kept for
 * the process). A fake built from the same reading as the pull would pass a misreading; the vendor's file
 * does not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FakeReply, FakeRequest } from './types.js';

const require = createRequire(import.meta.url);

/** Where the pinned documents are: test/vendor-specs/ beside test/fakes/. */
export const VENDOR_SPECS_DIR = fileURLToPath(new URL('../../vendor-specs/', import.meta.url));

interface VendorSpec {
  /** The document under VENDOR_SPECS_DIR (JSON, or YAML as the vendor publishes it). */
  file: string;
  /** The request's path as the document names it, or undefined when the document does not cover it. */
  specPath(pathname: string): string | undefined;
}

const VENDORS: Record<string, VendorSpec> = {
  // Twilio's Media Content Service (`/v1/Services/<sid>/Media`) is another API than Conversations.
  twilio: {
    file: 'twilio/twilio_conversations_v1.json',
    specPath: (p) => (p.startsWith('/v1/') && !/^\/v1\/Services\/[^/]+\/Media\//.test(p) ? p : undefined),
  },
  // The document's server is https://discord.com/api/v10: its paths come after the version.
  discord: { file: 'discord/openapi.json', specPath: (p) => p.replace(/^\/api\/v\d+(?=\/)/, '') },
  // Stream's CDN links are signed file URLs, not API calls.
  stream: { file: 'stream/chat-openapi.json', specPath: (p) => (p.startsWith('/stream-cdn/') ? undefined : p) },
  sendbird: { file: 'sendbird/openapi.yaml', specPath: (p) => (p.startsWith('/v3/') ? p : undefined) },
  // Generated from Slack's SDK method definitions (test/vendor-specs/slack/generate.mjs); files are downloads.
  slack: {
    file: 'slack/openapi.json',
    specPath: (p) => (p === '/' || p.startsWith('/files-pri/') ? undefined : p.replace(/^\/api(?=\/)/, '')),
  },
};

// biome-ignore lint/suspicious/noExplicitAny: openapi-backend's document and operation types are generic JSON.
type Json = any;
interface Backend {
  init(): Promise<unknown>;
  matchOperation(req: { method: string; path: string; headers: Record<string, string> }): Json;
  validateRequest(req: Json, operation?: Json): { valid: boolean; errors?: Json[] | null };
  validateResponse(body: unknown, operation: Json, status?: number): { valid: boolean; errors?: Json[] | null };
}

/** One vendor's document, ready to check exchanges with. */
export class SpecCheck {
  /** Query parameters the document's security schemes carry (Stream's `api_key`): not operation parameters. */
  private readonly securityQuery: Set<string>;

  constructor(
    private readonly vendor: VendorSpec,
    private readonly api: Backend,
    document: Json,
  ) {
    const schemes: Json[] = Object.values(document.components?.securitySchemes ?? {});
    this.securityQuery = new Set(schemes.filter((s) => s.type === 'apiKey' && s.in === 'query').map((s) => s.name));
  }

  /** What is wrong with one exchange, one line each (empty when both sides follow the document). */
  check(request: FakeRequest, reply: FakeReply | undefined): string[] {
    try {
      return this.checkOrThrow(request, reply);
    } catch (error) {
      return [`${request.method} ${request.url.pathname}: the check failed: ${(error as Error).message}`];
    }
  }

  private checkOrThrow(request: FakeRequest, reply: FakeReply | undefined): string[] {
    const path = this.vendor.specPath(request.url.pathname);
    if (path === undefined) return [];
    const headers = lowerHeaders(request.headers);
    const operation = this.api.matchOperation({ method: request.method, path, headers });
    // Named by the document's path, so a page that is wrong a thousand times is one line.
    const at = `${request.method} ${operation?.path ?? path}`;
    if (!operation) return [`${at}: request: no such operation in the vendor's document`];
    const out: string[] = [];
    const query: Record<string, string | string[]> = {};
    for (const [key, value] of request.url.searchParams) {
      if (this.securityQuery.has(key)) continue;
      const had = query[key];
      query[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    const asked = this.api.validateRequest(
      { method: request.method, path, headers, query, body: request.body },
      operation,
    );
    for (const e of asked.errors ?? []) out.push(`${at}: request: ${describe(e)}`);
    const json = reply !== undefined && reply.body !== undefined && typeof reply.body === 'object';
    if (json && !Buffer.isBuffer(reply.body)) {
      const answered = this.api.validateResponse(reply.body, operation, reply.status);
      for (const e of answered.errors ?? []) out.push(`${at}: answer ${reply.status}: ${describe(e)}`);
    }
    return out;
  }
}

function lowerHeaders(headers: FakeRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

function describe(e: Json): string {
  const where = (e.instancePath || '/').replace(/\/\d+(?=\/|$)/g, '/*');
  const detail = e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
  return `${where} ${e.message}${detail}`;
}

/** Ajv's formats (date-time, uri...) plus the vendors' own names; unknown ones are not checked. */
function customizeAjv(ajv: Json): Json {
  require('ajv-formats')(ajv);
  ajv.addFormat('snowflake', /^(0|[1-9][0-9]{0,19})$/);
  return ajv;
}

/**
 * OpenAPI 3.0's `nullable` on a schema with no `type` (Twilio's free-form `attributes`) already allows
 * null; Ajv refuses the keyword there, so it goes, in memory only.
 */
function dropUntypedNullable(node: Json): void {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node) && 'nullable' in node && !('type' in node)) delete node.nullable;
  for (const value of Object.values(node)) dropUntypedNullable(value);
}

/**
 * Sendbird marks both `message_ts` and `message_id` required on List messages while each one's own
 * description says "Either this or the ... parameter" is to be given: such a pair is taken as optional
 * (the request may carry either), in memory only.
 */
function eitherOfTwoOptional(document: Json): void {
  for (const item of Object.values<Json>(document.paths ?? {}))
    for (const operation of Object.values<Json>(item))
      for (const p of operation?.parameters ?? [])
        if (p.in === 'query' && p.required && /\bEither this or the \w+ parameter\b/.test(p.description ?? ''))
          p.required = false;
}

const loaded = new Map<string, Promise<SpecCheck | undefined>>();

/**
 * The check of `source`'s vendor, loaded once per process; undefined when no document is pinned for it
 * (a test source, or Stream's, whose licence keeps it out of the repository: see its README).
 */
export function specCheckFor(source: string): Promise<SpecCheck | undefined> {
  let check = loaded.get(source);
  if (check === undefined) {
    check = load(source);
    loaded.set(source, check);
  }
  return check;
}

async function load(source: string): Promise<SpecCheck | undefined> {
  const vendor = VENDORS[source];
  if (vendor === undefined) return undefined;
  const file = `${VENDOR_SPECS_DIR}${vendor.file}`;
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const document = file.endsWith('.json') ? JSON.parse(text) : require('js-yaml').load(text);
  dropUntypedNullable(document);
  eitherOfTwoOptional(document);
  const { OpenAPIBackend } = require('openapi-backend');
  // Quick: no check of the document itself, validators compiled on first use (a pull uses a handful).
  const api: Backend = new OpenAPIBackend({
    definition: document,
    quick: true,
    ajvOpts: { logger: false, allErrors: true },
    customizeAjv,
  });
  await api.init();
  return new SpecCheck(vendor, api, document);
}
