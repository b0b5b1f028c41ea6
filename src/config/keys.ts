/**
 * The one table of config keys. Everything else about a key is derived from its entry here: the
 * `MigrateConfig` type, DEFAULTS, the checks of each layer, the environment layer, the commander
 * flags, `.migrate.config.example.json` and docs/configuration.md. Adding a key is adding an entry.
 */
import type { SourcesConfig } from './types.js';
import { EXAMPLE_SOURCES } from './sources-schema.js';
import { EXAMPLE_MEDIA, type MediaConfig } from './media-schema.js';
import {
  DEFAULT_REQUESTS_PER_MINUTE,
  DEFAULT_REST_REQUESTS_PER_MINUTE,
  ID_RULES,
  KNOWN_REGIONS,
  MAX_BATCH_SIZE,
  type KeySpec,
} from './key-spec.js';
import { PRESET_NAMES } from '../systems/registry.js';
import { PULL_KEYS } from './pull-keys.js';

export * from './key-spec.js';

/** The commands that send to the service with the key. */
const SEND = ['import', 'verify', 'undo', 'replay', 'sync'] as const;
/** The commands told what export to read (sync reads the folder it pulls into, as its preset). */
const EXPORT = ['import', 'validate', 'verify', 'replay'] as const;
/** The commands that read the export (replay reads it for its ids and maps). */
const READ = [...EXPORT, 'sync'] as const;
/** The commands that send records through the import endpoints (verify --repair too). */
const IMPORT = ['import', 'verify', 'replay', 'sync'] as const;

export const CONFIG_KEYS = {
  appId: {
    kind: 'string',
    group: 'connection',
    commands: [...SEND, 'validate'],
    env: 'MIGRATE_APP_ID',
    flag: '--app-id <id>',
    help: 'app id; with region it builds the base URL',
    example: '12345abcde',
  },
  region: {
    kind: 'string',
    group: 'connection',
    commands: [...SEND, 'validate'],
    env: 'MIGRATE_REGION',
    flag: '--region <region>',
    choices: KNOWN_REGIONS,
    help: `region: ${KNOWN_REGIONS.join(', ')} (any case)`,
    example: 'us',
    doc:
      'Any case (`EU` is `eu`). Any other region is an error, or only a warning when `baseUrl` is set (the ' +
      'region is then not used); as a flag, `--region` is a usage error naming the regions (exit 2).',
  },
  apiKey: {
    kind: 'string',
    group: 'connection',
    commands: SEND,
    env: 'MIGRATE_API_KEY',
    flag: '--api-key <key>',
    secret: true,
    help: 'the REST API key',
    doc: 'Prefer the environment; a config file holding it that others can read draws a warning.',
    example: '<your REST API key, or leave out and set MIGRATE_API_KEY>',
  },
  baseUrl: {
    kind: 'url',
    group: 'connection',
    commands: [...SEND, 'validate'],
    env: 'MIGRATE_BASE_URL',
    flag: '--base-url <url>',
    alwaysSet: true,
    shownDefault: 'https://<appId>.api-<region>.cometchat.io',
    help: 'service base URL: https://, or http:// to a loopback sandbox',
    doc:
      'The tool appends `/<apiVersion>/data_import/<entity>`. Any other `http://` is refused by import: ' +
      'the key would travel in clear (validate, which sends nothing, only warns).',
    example: 'https://12345abcde.api-us.cometchat.io',
  },
  apiVersion: {
    kind: 'string',
    group: 'connection',
    commands: SEND,
    default: 'v3.0',
    example: 'v3.0',
    env: 'MIGRATE_API_VERSION',
    flag: '--api-version <version>',
    pattern: { regex: /^v\d+(\.\d+)?$/, what: 'a version segment such as v3.0 or v3' },
    help: 'the version segment of every endpoint the tool calls: v3.0 as the spec writes it, or v3',
    doc: "The vendor's current pages write `v3`. See [Network](network.md).",
  },
  sources: {
    kind: 'sources',
    group: 'sources',
    commands: EXPORT,
    alwaysSet: true,
    example: EXAMPLE_SOURCES,
    help: 'one source per entity (users, groups, members, messages): its files and how to read them (below)',
  },
  importSoftDeleted: {
    kind: 'bool',
    group: 'sources',
    commands: READ,
    default: false,
    flag: '--import-soft-deleted',
    help: 'import soft-deleted messages (deletion time kept in data.metadata.deletedAt)',
  },
  checkpoint: {
    kind: 'path',
    group: 'checkpoint',
    commands: ['import', 'validate', 'status', 'verify', 'undo', 'replay', 'report', 'ids', 'pull', 'sync'],
    default: '.migrate-checkpoint.json',
    flag: '--checkpoint <file>',
    help: 'checkpoint file: the progress of the run',
    doc:
      'Missing folders are created; a CI job caches its folder. With a preset, the id mapping file is written ' +
      'beside it, named after it: `.migrate-checkpoint.ids.ndjson`.',
  },
  rejects: {
    kind: 'path',
    group: 'checkpoint',
    commands: ['import', 'validate', 'verify', 'undo', 'replay', 'report', 'sync'],
    default: 'migrate-rejects.ndjson',
    flag: '--rejects <file>',
    help: 'rejects file: refused records, NDJSON, appended across runs',
    doc: 'Missing folders are created.',
  },
  checkpointIntervalMs: {
    kind: 'int',
    min: 0,
    group: 'checkpoint',
    commands: ['import', 'verify', 'undo', 'replay', 'sync'],
    default: 200,
    flag: '--checkpoint-interval-ms <n>',
    help: 'shortest time between checkpoint writes while batches are answered; 0: after every batch',
  },
  batchSize: {
    kind: 'int',
    min: 1,
    max: MAX_BATCH_SIZE,
    maxWhy: "the service's limit per request",
    group: 'sending',
    commands: IMPORT,
    default: MAX_BATCH_SIZE,
    flag: '--batch-size <n>',
    help: `records per request, at most ${MAX_BATCH_SIZE}`,
  },
  concurrency: {
    kind: 'int',
    min: 1,
    group: 'sending',
    commands: SEND,
    default: 4,
    flag: '--concurrency <n>',
    help: 'requests in flight',
  },
  requestsPerMinute: {
    kind: 'rate',
    group: 'sending',
    commands: IMPORT,
    default: DEFAULT_REQUESTS_PER_MINUTE,
    flag: '--requests-per-minute <n>',
    help:
      'client-side rate limit, or "auto": learn it from the service\'s X-Rate-Limit headers, ' +
      `starting at ${DEFAULT_REQUESTS_PER_MINUTE}`,
  },
  retries: {
    kind: 'int',
    min: 0,
    group: 'sending',
    commands: [...SEND, 'pull'],
    default: 8,
    flag: '--retries <n>',
    help: 'retries per request for 429, 5xx, timeouts and network errors',
  },
  timeoutMs: {
    kind: 'int',
    min: 1,
    group: 'sending',
    commands: [...SEND, 'pull'],
    default: 30_000,
    flag: '--timeout-ms <n>',
    help: 'request timeout, in milliseconds',
  },
  ...PULL_KEYS,
  restRequestsPerMinute: {
    kind: 'rate',
    group: 'sending',
    commands: ['verify', 'undo', 'sync'],
    default: DEFAULT_REST_REQUESTS_PER_MINUTE,
    flag: '--rest-requests-per-minute <n>',
    help:
      'client-side rate limit of the reads of verify and the deletes of undo, or "auto" (learnt from ' +
      'X-Rate-Limit); lowered on 429s',
    doc:
      'Reads and deletes are the service\'s "standard operations", with a budget apart from the ' +
      "import's: 20,000 a minute per app, which the app's own users share, and 500 a minute over " +
      'everything on the free plan (the default). Formerly `readRequestsPerMinute`. See [Verify](verify.md).',
  },
  retentionDays: {
    kind: 'int',
    min: 0,
    group: 'sending',
    commands: ['import', 'validate', 'verify', 'sync'],
    default: 180,
    flag: '--retention-days <n>',
    help: "days of messages the app keeps (the vendor's default: about 6 months, 180); 0: unlimited",
    doc:
      "The vendor's import refuses older messages, and one of them fails its whole request with 500 after " +
      'the records before it were stored. So import skips them (counted as `beyond-retention`), `validate` ' +
      'names them with the day the window starts, and verify reports them apart, never as missing. An app ' +
      'with extended storage sets its window here, or 0. See [Verify](verify.md#retention).',
  },
  preset: {
    kind: 'string',
    group: 'presets',
    commands: EXPORT,
    flag: '--preset <name>',
    choices: PRESET_NAMES,
    example: null,
    help: `read an export as its system wrote it: ${PRESET_NAMES.join(', ')}`,
    doc: 'With `preset` and `from` set, `sources` is not used.',
  },
  from: {
    kind: 'path',
    group: 'presets',
    commands: EXPORT,
    flag: '--from <path>',
    example: null,
    help: 'the export folder, .zip or file for the preset',
  },
  idRule: {
    kind: 'string',
    group: 'presets',
    commands: [...READ, 'ids of'],
    default: 'vendor',
    flag: '--id-rule <rule>',
    choices: ID_RULES,
    help: "how uids, guids and muids are derived from the export's ids: vendor or collision-free",
    doc:
      "`vendor`: the vendor's own function (`toCometChatId`), which apps built on its guides log users in " +
      'with; it can map two export ids to one, which validate reports. `collision-free`: a readable head and ' +
      '80 bits of SHA-256, never the same for two ids, but apps must look ids up in the id map. Keep the ' +
      'same rule for the whole migration (a resume refuses another). See [Ids](ids.md).',
  },
  systemUser: {
    kind: 'string',
    group: 'presets',
    commands: READ,
    default: 'system',
    flag: '--system-user <uid>',
    help: 'uid that sends admin/system/service messages; created when used',
  },
  includeBots: {
    kind: 'bool',
    group: 'presets',
    commands: READ,
    default: true,
    flag: '--skip-bots',
    flagSets: false,
    help: 'import bot users and bot messages; false skips them with reason bot (Slack, Discord)',
    flagHelp: 'skip bot users and bot messages (counted as skipped)',
  },
  includeJoinLeave: {
    kind: 'bool',
    group: 'presets',
    commands: READ,
    default: false,
    flag: '--include-join-leave',
    help: 'import join/leave events as messages; else they are skipped as join-leave',
  },
  mediaBaseUrl: {
    kind: 'url',
    group: 'presets',
    commands: READ,
    flag: '--media-base-url <url>',
    example: null,
    help: "where the export's media files were uploaded: relative media paths become attachment URLs under it",
  },
  userMap: {
    kind: 'path',
    group: 'sources',
    commands: READ,
    flag: '--user-map <file>',
    example: null,
    help:
      'export users the app already has: a CSV (from,to), JSON/NDJSON ({from, to}) or JSON object ' +
      '({"old-id": "app-uid"}) file of ids',
    doc:
      "`from` is the export's user id, or an e-mail: the e-mail the users source's mapping produces " +
      "(see `userEmailField`; Slack and Sendbird exports: their own), `to` the app's uid. Every reference " +
      'is rewritten to `to`; mapped users are not sent (skipped as `mapped`). A file of another shape stops ' +
      'the run, naming the line and these forms. See [Rehearse, then migrate](rehearse-then-migrate.md).',
  },
  userEmailField: {
    kind: 'string',
    group: 'sources',
    commands: READ,
    flag: '--user-email-field <field>',
    example: null,
    pattern: { regex: /^[^.\s]+(\.[^.\s]+)*$/, what: 'a field name or dotted path such as metadata.email' },
    help: "the user field holding the e-mail userMap's e-mail lines match, e.g. metadata.email",
    doc:
      'A field of the user as sent (after `map`), else a column of the users file as read (an e-mail ' +
      "you match by but do not send). Unset, it is found: a preset's own e-mail (Slack `profile.email`, " +
      'Sendbird `email`), then every `map` target whose name or column says e-mail (`email`, ' +
      '`email_address`, `mail`, `workEmail`, ...), then `metadata.email`, then an `email` column.',
  },
  groupMap: {
    kind: 'path',
    group: 'sources',
    commands: READ,
    flag: '--group-map <file>',
    example: null,
    help:
      'export groups the app already has: a CSV (from,to), JSON/NDJSON ({from, to}) or JSON object ' +
      '({"old-guid": "app-guid"}) file of guids',
    doc: 'As `userMap`, for groups: references rewritten to `to`, mapped groups not sent (skipped as `mapped`).',
  },
  media: {
    kind: 'media',
    group: 'media',
    commands: READ,
    example: EXAMPLE_MEDIA,
    help: 'carry attachments into an S3-compatible bucket and point messages at it (docs/media.md); unset: URLs stay',
  },
} as const satisfies Record<string, KeySpec>;

export type KeyTable = typeof CONFIG_KEYS;
export type ConfigKey = keyof KeyTable;
export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

/** A key's entry, seen through the general shape (the table's literal types lack the optional fields). */
export const specOf = (key: ConfigKey): KeySpec => CONFIG_KEYS[key];

/** The default as the reference page and --help show it, if there is one to show. */
export const shownDefaultOf = (spec: KeySpec): string | undefined =>
  spec.shownDefault ?? (spec.default === undefined ? undefined : String(spec.default));

/** The value each kind holds once checked. */
export interface KindValues {
  string: string;
  path: string;
  url: string;
  int: number;
  bool: boolean;
  rate: number | 'auto';
  sources: SourcesConfig;
  media: MediaConfig;
}
export type ValueOf<K extends ConfigKey> = KindValues[KeyTable[K]['kind']];

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type DefaultKey = { [K in ConfigKey]: KeyTable[K] extends { default: unknown } ? K : never }[ConfigKey];
type SetKey = {
  [K in ConfigKey]: KeyTable[K] extends { default: unknown } | { alwaysSet: true } ? K : never;
}[ConfigKey];

/** The settings a run uses, after file, environment and flags are merged and checked. */
export type MigrateConfig = Simplify<
  { [K in SetKey]: ValueOf<K> } & { [K in Exclude<ConfigKey, SetKey>]?: ValueOf<K> }
>;

/** The loader's bottom layer. */
export const DEFAULTS = Object.fromEntries(
  CONFIG_KEY_NAMES.filter((key) => specOf(key).default !== undefined).map((key) => [key, specOf(key).default]),
) as { readonly [K in DefaultKey]: ValueOf<K> };
