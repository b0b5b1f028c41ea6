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
import { mendCometChat } from './spec-mends-cometchat.js';
import type { FakeReply, FakeRequest } from './types.js';

const require = createRequire(import.meta.url);

/** Where the pinned documents are: test/vendor-specs/ beside test/fakes/. */
export const VENDOR_SPECS_DIR = fileURLToPath(new URL('../../vendor-specs/', import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: openapi-backend's document and operation types are generic JSON.
type Json = any;

interface VendorSpec {
  /** The document under VENDOR_SPECS_DIR (JSON, or YAML as the vendor publishes it). */
  file: string;
  /** A vendor that publishes its API in several documents: the one covering a path (default `file`). */
  files?: { all: string[]; for(pathname: string): string };
  /** The request's path as the document names it, or undefined when the document does not cover it. */
  specPath(pathname: string): string | undefined;
  /** The vendor's own errors in its document, mended in memory: each a narrow, documented exception. */
  mend?(document: Json, file: string): void;
  /** Where a body's keys are ids (a record map), the id each violation's path names is left out here. */
  ids?: RegExp;
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
  // The service (our sandbox stands for it): its import API and its Chat REST API are two documents,
  // both with their paths after the version (`/v3.0/...` as the spec writes it, `/v3/...` as its pages do).
  cometchat: {
    file: 'cometchat/chat-apis.json',
    files: {
      all: ['cometchat/chat-apis.json', 'cometchat/data-import-apis.json'],
      for: (p) => (p.includes('/data_import/') ? 'cometchat/data-import-apis.json' : 'cometchat/chat-apis.json'),
    },
    specPath: (p) => (/^\/v3(?:\.0)?\//.test(p) ? p.replace(/^\/v3(?:\.0)?(?=\/)/, '') : undefined),
    mend: (document, file) => mendCometChat(document, file),
    // Bodies and answers are maps keyed by the records' ids: `/requestBody/messages/<muid>/...`, `/data/<uid>`.
    ids: /^(\/requestBody\/(?:users|groups|members|messages)|\/data)\/[^/]+/,
  },
};

interface Backend {
  init(): Promise<unknown>;
  matchOperation(req: { method: string; path: string; headers: Record<string, string> }): Json;
  validateRequest(req: Json, operation?: Json): { valid: boolean; errors?: Json[] | null };
  validateResponse(body: unknown, operation: Json, status?: number): { valid: boolean; errors?: Json[] | null };
}

/** One vendor's documents (most have one), compiled, with what their security schemes ask of a request. */
interface Document {
  api: Backend;
  /** Query parameters the document's security schemes carry (Stream's `api_key`): not operation parameters. */
  securityQuery: Set<string>;
  /** Headers the document's security schemes carry (CometChat's `apikey`), by scheme name. */
  securityHeaders: Map<string, string>;
  /** The document-wide security requirement, for operations that state none. */
  security: Json[] | undefined;
}

/** One vendor's documents, ready to check exchanges with. */
export class SpecCheck {
  constructor(
    private readonly vendor: VendorSpec,
    private readonly documents: Map<string, Document>,
  ) {}

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
    const document = this.documents.get(this.vendor.files?.for(request.url.pathname) ?? this.vendor.file) as Document;
    const { api } = document;
    const headers = lowerHeaders(request.headers);
    const operation = api.matchOperation({ method: request.method, path, headers });
    // Named by the document's path, so a page that is wrong a thousand times is one line.
    const at = `${request.method} ${operation?.path ?? path}`;
    if (!operation) return [`${at}: request: no such operation in the vendor's document`];
    const out: string[] = [];
    const query: Record<string, string | string[]> = {};
    for (const [key, value] of request.url.searchParams) {
      if (document.securityQuery.has(key)) continue;
      const had = query[key];
      query[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    const missing = missingSecurityHeaders(operation.security ?? document.security, document.securityHeaders, headers);
    if (missing.length > 0) out.push(`${at}: request: no ${missing.join(' or ')} header, which the document requires`);
    const asked = api.validateRequest({ method: request.method, path, headers, query, body: request.body }, operation);
    for (const e of asked.errors ?? []) out.push(`${at}: request: ${describe(e, this.vendor.ids)}`);
    const json = reply !== undefined && reply.body !== undefined && typeof reply.body === 'object';
    if (json && !Buffer.isBuffer(reply.body)) {
      const answered = api.validateResponse(reply.body, operation, reply.status);
      for (const e of answered.errors ?? []) out.push(`${at}: answer ${reply.status}: ${describe(e, this.vendor.ids)}`);
    }
    return out;
  }
}

/**
 * The header names of an operation's security requirement that the request lacks: none when one of its
 * alternatives is met, or when none of them is an apiKey in a header (a token in a query, HTTP auth...).
 */
function missingSecurityHeaders(
  requirement: Json[] | undefined,
  schemes: Map<string, string>,
  headers: Record<string, string>,
): string[] {
  const missing: string[] = [];
  for (const alternative of requirement ?? []) {
    const names = Object.keys(alternative ?? {}).map((scheme) => schemes.get(scheme));
    if (names.some((name) => name === undefined)) return [];
    const lacking = (names as string[]).filter((name) => headers[name.toLowerCase()] === undefined);
    if (lacking.length === 0) return [];
    missing.push(...lacking);
  }
  return missing;
}

function lowerHeaders(headers: FakeRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}

function describe(e: Json, ids?: RegExp): string {
  const path = ids === undefined ? e.instancePath : e.instancePath.replace(ids, '$1/<id>');
  const where = (path || '/').replace(/\/\d+(?=\/|$)/g, '/*');
  const detail = e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
  return `${where} ${e.message}${detail}`;
}

/** The Ajv keyword that stands for a reference to one of the document's schemas (see `shareSchemas`). */
const SCHEMA_REF = 'x-spec-schema';

/**
 * One Ajv per vendor and option set for the process, holding the document's schemas once: the
 * operations' schemas name them by SCHEMA_REF instead of `$ref`, so openapi-backend's dereferencing
 * leaves them alone and each schema is compiled once, not once per place it is used (Discord's message
 * list inlined is megabytes of code; shared, it compiles in well under a second). Ajv's formats
 * (date-time, uri...) plus Discord's `snowflake`; other vendor format names are not checked.
 */
function sharedAjv(components: Json): (ajv: Json, opts: Json) => Json {
  const byOptions = new Map<string, Json>();
  return (ajv, opts) => {
    const key = JSON.stringify(opts);
    const had = byOptions.get(key);
    if (had !== undefined) return had;
    require('ajv-formats')(ajv);
    ajv.addFormat('snowflake', /^(0|[1-9][0-9]{0,19})$/);
    ajv.addSchema({ $id: 'spec', components }, 'spec');
    ajv.addKeyword({
      keyword: SCHEMA_REF,
      errors: true,
      validate: function check(name: string, data: unknown, _parent: unknown, cxt: Json): boolean {
        const validate = ajv.getSchema(`spec#/components/schemas/${name}`);
        const ok = validate(data);
        (check as Json).errors = ok
          ? null
          : validate.errors.map((e: Json) => ({ ...e, instancePath: `${cxt?.instancePath ?? ''}${e.instancePath}` }));
        return ok;
      },
    });
    byOptions.set(key, ajv);
    return ajv;
  };
}

/** The document with each `$ref` to a schema outside `components/schemas` turned into SCHEMA_REF. */
function shareSchemas(node: Json, inComponents = false): Json {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((v) => shareSchemas(v, inComponents));
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    const ref = k === '$ref' && typeof v === 'string' && /^#\/components\/schemas\/([^/]+)$/.exec(v);
    if (ref && !inComponents) out[SCHEMA_REF] = decodeURIComponent(ref[1]).replace(/~1/g, '/').replace(/~0/g, '~');
    else out[k] = shareSchemas(v, inComponents);
  }
  return out;
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

/**
 * An enum shorter than its own description: Sendbird's `member_active_mode_filter` lists `activated` and
 * `deactivated` while its text says "Acceptable values are `all`, `activated`, and `deactivated`". The
 * values a description names as acceptable are added to the enum, in memory only.
 */
function enumsAsDescribed(document: Json): void {
  for (const item of Object.values<Json>(document.paths ?? {}))
    for (const operation of Object.values<Json>(item))
      for (const p of operation?.parameters ?? []) {
        const listed = /Acceptable values are ((?:`\w+`,? (?:and )?)+)/.exec(p.description ?? '')?.[1];
        if (!Array.isArray(p.schema?.enum) || listed === undefined) continue;
        for (const [, value] of listed.matchAll(/`(\w+)`/g))
          if (!p.schema.enum.includes(value)) p.schema.enum.push(value);
      }
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
  const files = vendor.files?.all ?? [vendor.file];
  if (!files.every((file) => existsSync(`${VENDOR_SPECS_DIR}${file}`))) return undefined;
  const documents = new Map<string, Document>();
  for (const file of files) documents.set(file, await compile(vendor, file));
  return new SpecCheck(vendor, documents);
}

async function compile(vendor: VendorSpec, file: string): Promise<Document> {
  const text = readFileSync(`${VENDOR_SPECS_DIR}${file}`, 'utf8');
  const document = file.endsWith('.json') ? JSON.parse(text) : require('js-yaml').load(text);
  dropUntypedNullable(document);
  eitherOfTwoOptional(document);
  enumsAsDescribed(document);
  vendor.mend?.(document, file);
  const { OpenAPIBackend } = require('openapi-backend');
  const schemas = document.components?.schemas ?? {};
  const definition = { ...shareSchemas(document), components: { ...document.components, schemas: {} } };
  // Quick: no check of the document itself, validators compiled on first use (a pull uses a handful).
  const api: Backend = new OpenAPIBackend({
    definition,
    quick: true,
    ajvOpts: { logger: false, allErrors: true, validateSchema: false },
    customizeAjv: sharedAjv({ schemas }),
  });
  await api.init();
  const schemes = Object.entries<Json>(document.components?.securitySchemes ?? {});
  const apiKeys = schemes.filter(([, s]) => s.type === 'apiKey');
  return {
    api,
    securityQuery: new Set(apiKeys.filter(([, s]) => s.in === 'query').map(([, s]) => s.name)),
    securityHeaders: new Map(apiKeys.filter(([, s]) => s.in === 'header').map(([name, s]) => [name, s.name])),
    security: document.security,
  };
}
