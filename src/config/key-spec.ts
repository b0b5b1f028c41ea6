/**
 * What an entry of the config table (keys.ts) may say, and the words it is written in: the commands,
 * the reference page's sections, the values a key takes from a list, the service's documented limits.
 */

/** The hosted service's documented limits (docs/api-contract.md "Limits"). */
export const MAX_BATCH_SIZE = 50;
export const DEFAULT_REQUESTS_PER_MINUTE = 60;
/**
 * Reads and deletes are the service's "standard operations" (read-api.md "Rate limits for reads"): 20,000
 * a minute per app, shared with the app's own users, and 500 a minute over everything on the free plan.
 * The default is the free plan's figure, the lowest documented: it fits every plan.
 */
export const DEFAULT_REST_REQUESTS_PER_MINUTE = 500;
/** The hosted service's regions (the vendor's OpenAPI file, `servers[].variables.region.enum`). */
export const KNOWN_REGIONS = ['us', 'eu', 'in'] as const;

/**
 * How a preset derives service ids from the export's ids (src/presets/shared/ids.ts, docs/ids.md):
 * the vendor's own function, which its apps log users in with, or the rule that never merges two ids.
 */
export const ID_RULES = ['vendor', 'collision-free'] as const;
export type IdRule = (typeof ID_RULES)[number];

/** How a value is checked; string, path and url are all non-empty strings (URLs are checked when used). */
export type KeyKind = 'string' | 'path' | 'url' | 'int' | 'bool' | 'rate' | 'sources' | 'media';
/**
 * The commands that read the config. A config file may hold every key, whichever command reads it;
 * a command's --help and flags are the keys whose entry names it (cli/options.ts `addConfigOptions`).
 * A new command is a name here and in the entries of the keys it uses.
 */
export const COMMAND_NAMES = [
  'import',
  'validate',
  'status',
  'verify',
  'undo',
  'replay',
  'report',
  'ids',
  'ids of',
  'pull',
  'sync',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** The presets' names, as the `preset` key accepts them; src/presets re-exports this list as PRESET_NAMES. */
export const PRESET_CHOICES = ['sendbird', 'stream', 'slack', 'discord', 'telegram', 'twilio', 'mattermost'] as const;

/** The live sources `pull` reads (src/pull/<name>/), each read back by the preset of the same name. */
export const SOURCE_NAMES = ['sendbird', 'stream', 'twilio', 'slack', 'discord'] as const;

/** The sections of the reference page, in its order. */
export const KEY_GROUPS = {
  connection: { title: 'Connection', note: 'Where to import, and the key to do it with.' },
  sources: { title: 'Sources', note: 'What is read. The shape of `sources` is below the tables.' },
  checkpoint: { title: 'Checkpoint and rejects', note: 'Where progress and refused records are kept.' },
  sending: { title: 'Sending', note: 'How requests are made.' },
  presets: {
    title: 'Presets',
    note:
      'Read an export as another system wrote it. Keep the same options when resuming a run: ' +
      'they decide which records exist.',
  },
  pull: {
    title: 'Pull',
    note:
      'Read a live source (`chat-migrate pull <source>`) over its API. Its credentials come only from the ' +
      'environment: see [Pull](pull.md).',
  },
  media: {
    title: 'Media',
    note: 'Re-host attachments in your own bucket during the import. The shape of `media` is below the tables.',
  },
} as const;
export type KeyGroup = keyof typeof KEY_GROUPS;

/** What one entry may say. The table `satisfies` it, so its literal types stay for the derived types. */
export interface KeySpec {
  kind: KeyKind;
  group: KeyGroup;
  /** One line, for `--help` and the reference page. */
  help: string;
  /** More for the reference page only. */
  doc?: string;
  commands: readonly CommandName[];
  /** Applied by the loader beneath the config file. */
  default?: string | number | boolean;
  /** The reference page's and --help's default when the loader works it out instead. */
  shownDefault?: string;
  /** The loader always sets it, though it has no plain default. */
  alwaysSet?: true;
  /** The example file's value when it is not the default (null shows the key unset). */
  example?: unknown;
  env?: `MIGRATE_${string}`;
  /** commander spelling, e.g. `--batch-size <n>`. */
  flag?: `--${string}`;
  /** A bool flag sets the key to this (`--skip-bots` sets includeBots to false); default true. */
  flagSets?: boolean;
  /** --help text when the flag says something else than the key (an inverting flag). */
  flagHelp?: string;
  /** int: the smallest value (default 1); above it, at most `max` (`maxWhy` says whose limit). */
  min?: number;
  max?: number;
  maxWhy?: string;
  /** Never printed; --help steers it to the environment. */
  secret?: true;
  /** string: the form the value must have, and how a message names it ("must be <what>"). */
  pattern?: { regex: RegExp; what: string };
  /**
   * string: the values it takes, in any case (`EU` is `eu`). A flag's other value is a usage error
   * naming them; in a file or the environment the key's own check says what it means (region: target.ts).
   */
  choices?: readonly string[];
}
