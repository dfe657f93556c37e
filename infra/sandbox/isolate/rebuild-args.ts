import { BigNumber } from './big-number.ts';
import type { WireResult, WireValue } from './wire.ts';

/**
 * Decoded arguments as ethers v5 gives them to SubQuery mappings: a frozen array with named keys
 * (`args[0]`, `args.from`), BigNumber for integers above 48 bits, and `Indexed { hash }` for
 * indexed dynamic values whose topic is only their hash.
 */
export function rebuildArgs(wire: WireResult): readonly unknown[] {
  return rebuild(wire) as readonly unknown[];
}

function rebuild(value: WireValue): unknown {
  if (typeof value === 'bigint') return BigNumber.from(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Object.freeze(value.map(rebuild));
  // ethers' Indexed lists `_isIndexed` first
  if ('$i' in value) return Object.freeze({ _isIndexed: true, hash: value.$i });
  const items: unknown[] & Record<string, unknown> = value.$r.map(rebuild) as unknown[] & Record<string, unknown>;
  if (value.c === 1) return copiedByLogDescription(items);
  // the names are ethers' keys already (domain/mapping/ethers-result-names.ts)
  value.n.forEach((name, i) => {
    if (name !== null) items[name] = items[i];
  });
  return Object.freeze(items);
}

/**
 * ethers' `LogDescription` deep-copies arguments that are not wholly frozen, and an Indexed
 * value is not: the copy is a frozen array without the named keys, each Indexed a plain object
 * of read-only keys that also lists the `constructor` its class inherited (ethers' `deepCopy`
 * walks keys with for…in). What SubQuery mappings get for events with an indexed string, bytes,
 * array or tuple.
 */
function copiedByLogDescription(items: unknown[]): readonly unknown[] {
  return Object.freeze(
    items.map((item) => {
      if (item === null || typeof item !== 'object' || (item as { _isIndexed?: unknown })._isIndexed !== true) return item;
      const copy = {};
      for (const [key, v] of [
        ['_isIndexed', true],
        ['hash', (item as { hash: unknown }).hash],
        ['constructor', Indexed],
      ] as const) {
        Object.defineProperty(copy, key, { value: v, enumerable: true, writable: false });
      }
      return copy;
    }),
  );
}

/** ethers' Indexed class, as far as a mapping can reach it (`args[0].constructor.isIndexed`) */
function Indexed(): void {}
Indexed.isIndexed = (value: unknown): boolean => !!(value && (value as { _isIndexed?: unknown })._isIndexed);
