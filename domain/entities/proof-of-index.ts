import { bytesToHex, hexToBytes } from 'viem/utils';
import type { PoiRow, StoreOperation } from './entity-store.ts';

/** SHA-256 of bytes; given by infra (node:crypto) since the domain does no hashing of its own. */
export type Sha256 = (data: Uint8Array) => Uint8Array;

const encoder = new TextEncoder();

/**
 * One store operation as bytes that two runs always agree on: keys sorted, bigints and dates in
 * a fixed text form, bytes as hex. `Set`/`Remove` as SubQuery names them.
 */
export function encodeOperation(op: StoreOperation): Uint8Array {
  const body = op.op === 'set' ? ['Set', op.entity, op.id, canonical(op.data)] : ['Remove', op.entity, op.id];
  return encoder.encode(JSON.stringify(body));
}

function canonical(value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `bytes:${bytesToHex(value)}`;
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v);
    }
    return out;
  }
  return value;
}

/** Merkle root of the block's operations in order; an odd node is carried up unchanged. */
export function operationHashRoot(ops: readonly StoreOperation[], sha256: Sha256): Uint8Array {
  if (ops.length === 0) return sha256(new Uint8Array());
  let level = ops.map((op) => sha256(encodeOperation(op)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? sha256(concat(level[i]!, level[i + 1]!)) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/**
 * The `_poi` row of one block: its hash covers the height, the chain's block hash, the operations'
 * root, the project id and the previous row's hash, so any difference anywhere before changes it.
 */
export function poiRow(
  input: { height: number; chainBlockHash: string; operations: readonly StoreOperation[]; projectId: string; parentHash: Uint8Array | null },
  sha256: Sha256,
): PoiRow {
  const root = operationHashRoot(input.operations, sha256);
  const chainBlockHash = hexToBytes(input.chainBlockHash as `0x${string}`);
  const height = new Uint8Array(8);
  new DataView(height.buffer).setBigUint64(0, BigInt(input.height));
  const hash = sha256(concat(height, chainBlockHash, root, encoder.encode(input.projectId), input.parentHash ?? new Uint8Array(32)));
  return { id: input.height, chainBlockHash, hash, parentHash: input.parentHash, operationHashRoot: root };
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
