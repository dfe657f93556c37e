import { RealDate } from './deterministic.ts';

/**
 * A deep copy of entity data at the moment of `store.set`, as structured clone would make it when
 * the write crossed the boundary right away: later changes to the entity object must not reach the
 * buffered write. BigNumber values become bigint, the type entity fields hold.
 */
export function clonePlain(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (depth > 64) throw new TypeError('store: entity data is nested too deeply (a circular reference?)');
  if ((value as { _isBigNumber?: unknown })._isBigNumber === true && typeof (value as { _hex?: unknown })._hex === 'string') {
    return BigInt((value as { _hex: string })._hex.replace(/^-0x/, '0x')) * ((value as { _hex: string })._hex.startsWith('-') ? -1n : 1n);
  }
  if (value instanceof RealDate) return new RealDate(value.getTime());
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice();
  if (Array.isArray(value)) return value.map((v) => clonePlain(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v !== 'function') out[k] = clonePlain(v, depth + 1);
  }
  return out;
}
