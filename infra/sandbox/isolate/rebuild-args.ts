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
  if ('$i' in value) return Object.freeze({ hash: value.$i, _isIndexed: true });
  const items: unknown[] & Record<string, unknown> = value.$r.map(rebuild) as unknown[] & Record<string, unknown>;
  value.n.forEach((name, i) => {
    if (name && !(name in items)) items[name] = items[i];
  });
  return Object.freeze(items);
}
