// Option values of the command line, checked as commander parses them.
import { InvalidArgumentError } from 'commander';

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
