/**
 * Typed errors. Every fatal condition the tool can meet is one of these; `src/cli/fatal-error.ts`
 * is the one place that turns them into a message (never a stack trace) and an exit code.
 */

/** Where in the input a problem sits. */
export interface SourceLocation {
  file?: string;
  line?: number;
  field?: string;
}

/** Documented exit codes (README "Exit codes"). */
export const ExitCode = {
  ok: 0,
  fatal: 1,
  usage: 2,
  /**
   * The run finished, but some records were rejected (import) or had errors (validate), or messages are
   * left out by a retention window the user never set (pipeline/retention.ts).
   */
  rejected: 3,
  interrupted: 130,
} as const;

export class MigrationError extends Error {
  readonly code: string;
  readonly exitCode: number;
  readonly location?: SourceLocation;
  /** A hint the user can act on, printed under the message. */
  readonly hint?: string;

  constructor(
    code: string,
    message: string,
    options: { exitCode?: number; location?: SourceLocation; hint?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.fatal;
    this.location = options.location;
    this.hint = options.hint;
  }
}

/**
 * An error's message with its place, written once: `t/rej.ndjson:3: <message>`. A message that already
 * names its file (`cannot open users.csv: ...`) is not prefixed again; a field the message does not
 * quote is added after it. The CLI prints fatal errors through this alone.
 */
export function locatedMessage(err: MigrationError): string {
  const { location } = err;
  if (!location?.file) return err.message;
  const place = `${location.file}${location.line ? `:${location.line}` : ''}`;
  const field = location.field && !err.message.includes(`"${location.field}"`) ? ` (field "${location.field}")` : '';
  const [first, ...rest] = err.message.split('\n');
  const named = first.includes(location.file) ? first : `${place}: ${first}`;
  return [`${named}${field}`, ...rest].join('\n');
}

/** Bad configuration: unknown key, wrong type, missing apiKey, refused URL. */
export class ConfigError extends MigrationError {}

/** Input that cannot be read at all (missing file, unreadable directory). Bad records are not errors. */
export class InputError extends MigrationError {}

/** The remote service refused the run (auth), or retries ran out. */
export class RemoteError extends MigrationError {}

/**
 * What a live source's failure means, one code whichever source `pull` reads: its credentials are
 * not in the environment, or it refused them (a permission they lack included); a resource it was
 * asked for is gone; a request is outside its rules. And two the pull itself finds: an answer not in
 * the documented shape, a link to another origin than the source's.
 */
export type SourceErrorCode =
  | 'SOURCE_CREDENTIALS_MISSING'
  | 'SOURCE_CREDENTIALS_REFUSED'
  | 'SOURCE_GONE'
  | 'SOURCE_REFUSED'
  | 'SOURCE_SHAPE'
  | 'SOURCE_OTHER_ORIGIN';

/** A live source cannot be read: its code is one of SourceErrorCode's. */
export class SourceError extends RemoteError {
  declare readonly code: SourceErrorCode;

  constructor(
    code: SourceErrorCode,
    message: string,
    options: { exitCode?: number; location?: SourceLocation; hint?: string; cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** The checkpoint is corrupt, locked, unwritable, or made for another target. */
export class CheckpointError extends MigrationError {}

/** The run was stopped by SIGINT/SIGTERM; the checkpoint was saved. */
export class InterruptedError extends MigrationError {
  constructor(message = 'interrupted') {
    super('INTERRUPTED', message, { exitCode: ExitCode.interrupted });
  }
}

/** verify could not finish its comparison (the service's reads cannot be matched to the export). */
export class VerifyError extends MigrationError {}
