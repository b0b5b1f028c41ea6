// Writes openapi.json beside this file from Slack's own SDK types pinned in sdk/ (README here): one GET
// operation per Web API method the pull calls, its query parameters from the method's `...Arguments`
// type and its 200 answer from the `...Response` type. Run it again after re-pinning: `node
// test/vendor-specs/slack/generate.mjs`; `--check` fails if openapi.json is not what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));

/** The methods the pull calls (src/systems/slack/), each with its SDK argument and answer types. */
const METHODS = {
  'users.list': ['users', 'UsersListArguments', 'UsersListResponse'],
  'conversations.list': ['conversations', 'ConversationsListArguments', 'ConversationsListResponse'],
  'conversations.members': ['conversations', 'ConversationsMembersArguments', 'ConversationsMembersResponse'],
  'conversations.history': ['conversations', 'ConversationsHistoryArguments', 'ConversationsHistoryResponse'],
  'conversations.replies': ['conversations', 'ConversationsRepliesArguments', 'ConversationsRepliesResponse'],
};

// The one type the answers take from WebClient.ts (packages/web-api/src/WebClient.ts, same commit), copied
// as it is there rather than pinning a file that imports the whole client.
const WEB_CLIENT = `export interface WebAPICallResult {
  ok: boolean;
  response_metadata?: {
    warnings?: string[];
    next_cursor?: string;
    scopes?: string[];
    acceptedScopes?: string[];
    retryAfter?: number;
    messages?: string[];
  };
}
`;

const entry = join(here, '__entry.ts');
const entryText = Object.entries(METHODS)
  .map(
    ([, [file, args, answer]], i) =>
      `import type { ${args} as A${i} } from './sdk/request/${file}';\n` +
      `import type { ${answer} as R${i} } from './sdk/response/${answer}';\n` +
      `export type Args${i} = A${i};\nexport type Answer${i} = R${i};\n`,
  )
  .join('');

const options = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, types: [] };
const host = ts.createCompilerHost(options);
const readFile = host.readFile.bind(host);
const fileExists = host.fileExists.bind(host);
const webClient = join(here, 'WebClient.ts');
host.readFile = (f) => (f === entry ? entryText : f === webClient ? WEB_CLIENT : readFile(f));
host.fileExists = (f) => f === entry || f === webClient || fileExists(f);
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (f, lang) =>
  f === entry || f === webClient ? ts.createSourceFile(f, host.readFile(f), lang) : getSourceFile(f, lang);
const program = ts.createProgram([entry], options, host);
const checker = program.getTypeChecker();
const entryFile = program.getSourceFile(entry);
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(entryFile)).map((s) => [s.name, s]));
const typeOf = (name) => checker.getNonNullableType(checker.getDeclaredTypeOfSymbol(exported.get(name)));

/** The doc comment's text (`@description` tags included). */
function docOf(symbol) {
  const parts = [ts.displayPartsToString(symbol.getDocumentationComment(checker))];
  for (const tag of symbol.getJsDocTags(checker))
    if (tag.name === 'description') parts.push(ts.displayPartsToString(tag.text));
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** A JSON schema of a TypeScript type, as far as the type says; what it cannot say is left open. */
function schemaOf(type, stack = []) {
  if (stack.includes(type) || stack.length > 5) return {};
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (f & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [type.value] };
  if (f & ts.TypeFlags.NumberLiteral) return { type: 'number', enum: [type.value] };
  if (f & ts.TypeFlags.String) return { type: 'string' };
  if (f & ts.TypeFlags.Number) return { type: 'number' };
  if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return { type: 'boolean' };
  if (f & ts.TypeFlags.Null) return { nullable: true };
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    if (parts.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) return { type: 'boolean' };
    if (parts.every((t) => t.flags & ts.TypeFlags.StringLiteral))
      return { type: 'string', enum: parts.map((t) => t.value).sort() };
    if (parts.length === 1) return schemaOf(parts[0], stack);
    return { anyOf: parts.map((t) => schemaOf(t, [...stack, type])) };
  }
  if (checker.isArrayType(type))
    return { type: 'array', items: schemaOf(checker.getTypeArguments(type)[0], [...stack, type]) };
  if (f & ts.TypeFlags.Object || type.isIntersection()) {
    const properties = {};
    const required = [];
    for (const p of checker.getPropertiesOfType(type)) {
      const declared = checker.getTypeOfSymbol(p);
      properties[p.name] = schemaOf(declared, [...stack, type]);
      if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.name);
    }
    const out = { type: 'object', properties };
    if (required.length > 0) out.required = required.sort();
    return out;
  }
  return {};
}

/** One query parameter per argument (the token goes in the Authorization header, as the pull sends it). */
function parametersOf(type) {
  const out = [];
  for (const p of checker.getPropertiesOfType(type)) {
    if (p.name === 'token') continue;
    const doc = docOf(p);
    const schema = schemaOf(checker.getTypeOfSymbol(p));
    // The SDK's words, made a bound: CursorPaginationEnabled.limit "Must be an integer with a max value of `999`".
    if (/must be an integer/i.test(doc)) schema.type = 'integer';
    const max = /max value of `?(\d+)`?/i.exec(doc);
    if (max) schema.maximum = Number(max[1]);
    out.push({
      name: p.name,
      in: 'query',
      required: !(p.flags & ts.SymbolFlags.Optional),
      description: doc || undefined,
      schema,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const paths = {};
for (const [i, [method, [, args, answer]]] of Object.entries(METHODS).entries()) {
  paths[`/${method}`] = {
    get: {
      operationId: method,
      description: `From @slack/web-api ${args} and ${answer} (https://docs.slack.dev/reference/methods/${method}).`,
      parameters: parametersOf(typeOf(`Args${i}`)),
      responses: {
        200: {
          description: "The method's answer; a refusal is `ok: false` with `error`, still HTTP 200.",
          content: { 'application/json': { schema: schemaOf(typeOf(`Answer${i}`)) } },
        },
      },
    },
  };
}

const document = {
  openapi: '3.0.3',
  info: {
    title: 'Slack Web API methods the pull calls, generated from @slack/web-api types',
    version: 'see README.md',
  },
  servers: [{ url: 'https://slack.com/api' }],
  paths,
};
const text = `${JSON.stringify(document, null, 2)}\n`;
const target = join(here, 'openapi.json');
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text) {
    console.error(`${target} is not what generate.mjs writes: run it again`);
    process.exit(1);
  }
} else writeFileSync(target, text);
