import { InvalidArgumentError } from 'commander';
import type { KeyKind } from '../config/keys.js';
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
 * The parser of a config key's flag, by the key's kind. A whole number takes any value from 0 here: the
 * key's own range is checked with the other layers, so the message is the same wherever the value came from.
 */
export const CONFIG_FLAG_PARSERS: Partial<Record<KeyKind, (value: string) => unknown>> = {
  int: wholeNumber(0),
  rate: requestsPerMinute,
};
