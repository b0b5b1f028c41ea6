import { InvalidArgumentError } from 'commander';
import type { KeySpec } from '../config/keys.js';
import { choiceOf, intProblem } from '../config/schema.js';
import { toUnixSeconds } from '../entities/timestamps.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';

/** Flag value parsers: a bad value is commander's usage error (exit 2), naming the flag. */

export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      const range =
        max < Number.MAX_SAFE_INTEGER
          ? ` from ${min} to ${max}`
          : min > 0
            ? ` of at least ${min}`
            : min === 0
              ? ' (0 or more)'
              : '';
      throw new InvalidArgumentError(`must be a whole number${range}`);
    }
    return n;
  };

export const probability = (value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be a probability from 0 to 1');
  return n;
};

export const requestsPerMinute = (value: string): number | 'auto' => {
  if (value === 'auto') return value;
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError('must be a positive number or "auto"');
  return n;
};

export const sinceTime = (value: string): number => {
  const sec = toUnixSeconds(/^\d+$/.test(value) ? Number(value) : value);
  if (sec === undefined) throw new InvalidArgumentError('must be a date (ISO-8601) or UNIX time');
  return sec;
};

/** `pull --since`: a time as `--since` takes it, or `auto` (since the last pull), in any case. */
export const sinceOrAuto = (value: string): number | 'auto' =>
  value.toLowerCase() === 'auto' ? 'auto' : sinceTime(value);

/**
 * A flag that takes one of a few words, in any case (`--format MD` is `md`); another is a usage error
 * naming them. Every enum-like flag goes through it, so none is stricter about case than another.
 */
export const oneOf =
  <C extends string>(choices: readonly C[], what = 'It') =>
  (value: string): C => {
    const chosen = choiceOf(choices, value) as C | undefined;
    if (chosen === undefined) throw new InvalidArgumentError(`${what} must be one of ${choices.join(', ')}.`);
    return chosen;
  };

/** `a=b` flags gathered into one object; later ones win. `parseValue` checks (and may rewrite) each value. */
export const pairs =
  (parseValue?: (value: string) => string) =>
  (text: string, previous: Record<string, string> = {}): Record<string, string> => {
    const eq = text.indexOf('=');
    if (eq <= 0 || eq === text.length - 1) throw new InvalidArgumentError('must be <name>=<value>');
    const value = text.slice(eq + 1);
    return { ...previous, [text.slice(0, eq)]: parseValue ? parseValue(value) : value };
  };

/** An entity's name, in any case. */
export const entityName = oneOf(ENTITY_ORDER, 'The entity');

export const entityList = (value: string): Set<EntityName> => {
  const names = value.split(',').map((s) => s.trim().toLowerCase());
  for (const name of names) {
    if (!(ENTITY_ORDER as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`${name} is not an entity (${ENTITY_ORDER.join(', ')})`);
    }
  }
  return new Set(names as EntityName[]);
};

export const reportFormat = oneOf(['html', 'md']);
export const rateHeaderStyle = oneOf(['dashed', 'compact']);
export const responseStyle = oneOf(['flat', 'nested']);

/**
 * The parser of a config key's flag, by the key's entry in the table: a value out of the key's range is
 * commander's usage error (exit 2) naming the flag, in the words the layer check uses for a config file.
 */
export function configFlagParser(spec: KeySpec): ((value: string) => unknown) | undefined {
  switch (spec.kind) {
    case 'int':
      return (value: string): number => {
        const n = value.trim() === '' ? NaN : Number(value);
        const problem = intProblem(spec, n);
        if (problem !== undefined) throw new InvalidArgumentError(`It ${problem}.`);
        return n;
      };
    case 'rate':
      return requestsPerMinute;
    case 'string':
    case 'path':
    case 'url':
      return (value: string): string => {
        if (value === '') throw new InvalidArgumentError('It must not be empty.');
        const { choices, pattern } = spec;
        if (choices) return oneOf(choices)(value);
        if (pattern && !pattern.regex.test(value)) throw new InvalidArgumentError(`It must be ${pattern.what}.`);
        return value;
      };
    default:
      return undefined;
  }
}
