import type { ReadStatement } from './read-statement.ts';

/** The height of the block with hash `hex` (without 0x) in a `_poi` table (qualified): one row of `id` as text, or none. */
export function poiHeightOfHash(poi: string, hex: string): ReadStatement {
  // one probe of the chain_block_hash index (migrations/0002_poi_block_hash.sql)
  return { text: `select id::text as id from ${poi} where chain_block_hash = decode($1, 'hex') limit 1`, values: [hex] };
}

/** The 0x-hex hash of the block at `height` in a `_poi` table (qualified): one row of `hash`, or none. */
export function poiHashAt(poi: string, height: number): ReadStatement {
  return { text: `select '0x' || encode(chain_block_hash, 'hex') as hash from ${poi} where id = $1::int8`, values: [String(height)] };
}
