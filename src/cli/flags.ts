// Numeric flags, parsed by commander (.argParser): a bad value is a usage error that names the flag
// and what it takes, before any command runs.
import { InvalidArgumentError } from 'commander';

/** A whole number from min to max. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `a whole number of at least ${min}, not "${value}"`
          : `a whole number from ${min} to ${max}, not "${value}"`,
      );
    }
    return n;
  };
}

export function aNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`a number, not "${value}"`);
  return n;
}
