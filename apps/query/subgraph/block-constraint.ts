import { badInput } from '../compile-filter.ts';
import type { EntityTable } from '../entity-tables.ts';

/** graph-node's `Block_height` argument, as GraphQL coerced it. */
export interface BlockHeightInput {
  hash?: string | null;
  number?: number | null;
  number_gte?: number | null;
}

/** What a `block` argument asks for; graph-node reads `hash`, else `number`, else `number_gte`. */
export type BlockConstraint =
  | { kind: 'latest' }
  | { kind: 'number'; number: number }
  /** the latest block, provided the head has reached `number` */
  | { kind: 'min'; number: number }
  | { kind: 'hash'; hash: string };

/** The indexed chain as a block argument needs it (chain-view.ts reads it once per request). */
export interface BlockLookup {
  /** the name `_meta.deployment` and graph-node's messages give the project */
  readonly deployment: string;
  /** the last indexed block */
  head(): Promise<number>;
  /** the number of an indexed block by its hash, when idx kept it */
  numberOf(hash: string): Promise<number | undefined>;
}

export function blockConstraint(block: BlockHeightInput | null | undefined): BlockConstraint {
  if (block === null || block === undefined) return { kind: 'latest' };
  if (block.hash != null) return { kind: 'hash', hash: block.hash.toLowerCase() };
  for (const key of ['number', 'number_gte'] as const) {
    const n = block[key];
    if (n == null) continue;
    if (n < 0) throw badInput(`block.${key} must be a block number (0 or more), got ${n}`);
    return key === 'number' ? { kind: 'number', number: n } : { kind: 'min', number: n };
  }
  throw badInput('block: give one of hash, number or number_gte');
}

function notYet(key: string, deployment: string, head: number, n: number) {
  return badInput(
    `block.${key}: subgraph ${deployment} has only indexed up to block number ${head} and data for block number ${n} is therefore not yet available`,
  );
}

/**
 * The block a constraint names, checked against the head as graph-node checks it; `undefined` for
 * the latest (the live rows).
 */
export async function constrainedBlock(c: BlockConstraint, chain: BlockLookup): Promise<number | undefined> {
  switch (c.kind) {
    case 'latest':
      return undefined;
    case 'min': {
      const head = await chain.head();
      if (head < c.number) throw notYet('number_gte', chain.deployment, head, c.number);
      return undefined;
    }
    case 'number': {
      const head = await chain.head();
      if (head < c.number) throw notYet('number', chain.deployment, head, c.number);
      return c.number;
    }
    case 'hash': {
      const n = await chain.numberOf(c.hash);
      if (n === undefined) {
        throw badInput(
          `block.hash ${c.hash}: no block with that hash found. idx keeps the hashes of the blocks that wrote entities when idx-node runs with --proof-of-index, and of the blocks not yet final with --unfinalized-blocks; query by block number instead`,
        );
      }
      return n;
    }
  }
}

/**
 * The height rows of `t` are read at for a `block` argument (undefined: the live rows). A table
 * without history has only its latest rows, which still answer for the head itself.
 */
export async function heightFor(t: EntityTable, block: BlockHeightInput | null | undefined, chain: BlockLookup): Promise<bigint | undefined> {
  const n = await constrainedBlock(blockConstraint(block), chain);
  if (n === undefined) return undefined;
  if (t.historical) return BigInt(n);
  const head = await chain.head();
  if (n >= head) return undefined;
  throw badInput(
    `block ${n}: ${t.entity.name} was indexed with --disable-historical and has only its rows of the latest block (${head}); query without block, or at the latest block`,
  );
}
