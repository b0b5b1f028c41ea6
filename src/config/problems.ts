/**
 * Config problems are gathered across the file, the environment and the flags and thrown as one
 * error, so three typos take one run to find, not three.
 */
import { ConfigError } from '../errors.js';

/** One thing wrong with the settings, in words that name where it is. */
export interface ConfigProblem {
  code: string;
  message: string;
}

/** Every problem of a config, one per line after a count; a lone problem reads as it always has. */
export class ConfigProblemsError extends ConfigError {
  readonly problems: readonly ConfigProblem[];

  /** `code`: the code of the whole, when it is not the lone problem's or CONFIG_INVALID. */
  constructor(problems: readonly ConfigProblem[], code?: string, hint?: string) {
    const [first] = problems;
    super(
      code ?? (problems.length === 1 ? first.code : 'CONFIG_INVALID'),
      problems.length === 1
        ? first.message
        : [`${problems.length} problems in the configuration:`, ...problems.map((p) => `  ${p.message}`)].join('\n'),
      { hint },
    );
    this.problems = problems;
  }
}

export class ConfigProblems {
  readonly list: ConfigProblem[] = [];
  /** Top-level keys that already have a problem, so a check of the merged config does not repeat it. */
  private readonly keys = new Set<string>();

  /** `key` is the dotted path of what is wrong (`sources.users.path`), or a name for a whole part. */
  add(key: string, message: string, code = 'CONFIG_INVALID'): void {
    this.keys.add(key.split('.')[0]);
    this.list.push({ code, message });
  }

  /** Whether any of these top-level keys has a problem already. */
  touches(...keys: string[]): boolean {
    return keys.some((key) => this.keys.has(key));
  }

  throwIfAny(code?: string, hint?: string): void {
    if (this.list.length > 0) throw new ConfigProblemsError(this.list, code, hint);
  }
}

/** The message of a problem with one key of one layer: `.migrate.config.json: "batchSize" must be ...`. */
export const keyProblem = (where: string, key: string, text: string) => `${where}: "${key}" ${text}`;
