// Option values of the command line, checked as commander parses them.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../domain/duration.js';

export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** A parser accepting exactly one of `values`. */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return value as T;
  };
}

export function receiverId(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a receiver id (a number)');
  return Number(value);
}

/** A grace period for a rotated credential: a duration such as 30m, 24h or 7d. */
export function graceDuration(value: string): number {
  const parsed = parseDuration(value);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.reason);
  return parsed.ms;
}
