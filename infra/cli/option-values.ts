import { InvalidArgumentError } from 'commander';

/**
 * Value parsers shared by the programs' commander options: each throws commander's
 * InvalidArgumentError, which commander reports naming the flag.
 */

export const positiveInt = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) < 1 || !Number.isSafeInteger(Number(v))) throw new InvalidArgumentError('expected a positive integer.');
  return Number(v);
};

/** `--flag`, `--flag=true`, `--flag=false`, as SubQuery's yargs-based CLI accepts them. */
export const booleanValue = (v: string): boolean => {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new InvalidArgumentError('expected true or false.');
};
