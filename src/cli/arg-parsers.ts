import { InvalidArgumentError } from 'commander';
import type { KeySpec } from '../config/keys.js';
import { intProblem } from '../config/schema.js';
import { toUnixSeconds } from '../entities/timestamps.js';

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
