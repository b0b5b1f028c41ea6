import { InvalidArgumentError } from 'commander';
import type { KeySpec } from '../config/keys.js';
import { intProblem } from '../config/schema.js';
import { toUnixSeconds } from '../entities/timestamps.js';
import { ENTITY_ORDER, type EntityName } from '../entities/types.js';

/** Flag value parsers: a bad value is commander's usage error (exit 2), naming the flag. */

export const wholeNumber =
  (min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min) {
      const range = min > 0 ? ` of at least ${min}` : min === 0 ? ' (0 or more)' : '';
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

/** `a=b` flags gathered into one object; later ones win. */
export const pairs =
  (check?: (value: string) => string | undefined) =>
  (text: string, previous: Record<string, string> = {}): Record<string, string> => {
    const eq = text.indexOf('=');
    if (eq <= 0 || eq === text.length - 1) throw new InvalidArgumentError('must be <name>=<value>');
    const value = text.slice(eq + 1);
    const wrong = check?.(value);
    if (wrong !== undefined) throw new InvalidArgumentError(wrong);
    return { ...previous, [text.slice(0, eq)]: value };
  };

export const isEntity = (v: string) =>
  (ENTITY_ORDER as readonly string[]).includes(v) ? undefined : `entity must be one of ${ENTITY_ORDER.join(', ')}`;

export const entityList = (value: string): Set<EntityName> => {
  const names = value.split(',').map((s) => s.trim().toLowerCase());
  for (const name of names) {
    if (!(ENTITY_ORDER as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`${name} is not an entity (${ENTITY_ORDER.join(', ')})`);
    }
  }
  return new Set(names as EntityName[]);
};

export const reportFormat = (value: string): 'html' | 'md' => {
  if (value === 'html' || value === 'md') return value;
  throw new InvalidArgumentError('must be html or md');
};

export const rateHeaderStyle = (value: string): 'dashed' | 'compact' => {
  if (value !== 'dashed' && value !== 'compact') throw new InvalidArgumentError('must be dashed or compact');
  return value;
};

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
    default:
      return undefined;
  }
}
