import { IdxError } from '../../domain/errors.ts';
import type { ShardBlock } from '../../infra/postgres/shard-store.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber, toQuantity } from '../../infra/rpc/hex-quantity.ts';
import { isMethodUnsupported } from '../../infra/rpc/rpc-error.ts';

type Wire = Record<string, unknown>;

export interface UpstreamFetcher {
  /**
   * Blocks `from..to` with their transactions, receipts and logs, as the upstream sends them. A
   * height the upstream does not have (yet) ends the list early; a reorg while fetching (blocks
   * or receipts that do not chain) throws a retryable UPSTREAM_INCONSISTENT.
   */
  fetch(from: number, to: number): Promise<ShardBlock[]>;
  /** The upstream's block hashes at these heights (null where it has none). */
  hashes(heights: readonly number[]): Promise<(string | null)[]>;
}

export function createUpstreamFetcher(client: RpcClient, onNotice: (message: string) => void = () => {}): UpstreamFetcher {
  let useBlockReceipts = true;

  /** eth_getBlockReceipts of these heights, or undefined when the upstream lacks the method. */
  async function blockReceipts(heights: readonly number[]): Promise<(Wire[] | null)[] | undefined> {
    if (!useBlockReceipts) return undefined;
    const settled = await client.batchSettled(heights.map((h) => ({ method: 'eth_getBlockReceipts', params: [toQuantity(h)] })));
    if (settled.some((s) => !s.ok && isMethodUnsupported(s.error))) {
      useBlockReceipts = false;
      onNotice('the upstream has no eth_getBlockReceipts: fetching receipts one transaction at a time (in batches)');
      return undefined;
    }
    return settled.map((s) => {
      if (!s.ok) throw s.error;
      return Array.isArray(s.value) ? (s.value as Wire[]) : null;
    });
  }

  async function receiptsOf(blocks: Wire[], byBlock: (Wire[] | null)[] | undefined): Promise<Wire[][]> {
    if (byBlock !== undefined) {
      return blocks.map((b, i) => {
        const rs = byBlock[i];
        if (rs == null) throw inconsistent(`the upstream has no receipts for block ${hexToNumber(b.number)} any more`);
        return rs;
      });
    }
    const hashes = blocks.flatMap((b) => (b.transactions as Wire[]).map((t) => t.hash as string));
    const receipts = (await client.batch(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })))) as (Wire | null)[];
    let at = 0;
    return blocks.map((b) =>
      receipts.slice(at, (at += (b.transactions as Wire[]).length)).map((r, i) => {
        if (r === null) throw inconsistent(`the upstream has no receipt for transaction ${hashes[at - (b.transactions as Wire[]).length + i]}`);
        return r;
      }),
    );
  }

  return {
    async fetch(from, to) {
      if (to < from) return [];
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      // blocks and their receipts at once; a reorg in between shows as receipts of another block hash
      const [raw, byBlock] = await Promise.all([
        client.batch(heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(h), true] }))) as Promise<(Wire | null)[]>,
        blockReceipts(heights),
      ]);
      const end = raw.indexOf(null);
      const blocks = (end === -1 ? raw : raw.slice(0, end)) as Wire[];
      if (blocks.length === 0) return [];
      blocks.forEach((b, i) => {
        if (hexToNumber(b.number, 'block number') !== heights[i])
          throw new IdxError('UPSTREAM_BAD_RESPONSE', `asked the upstream for block ${heights[i]}, it answered block ${String(b.number)}`);
        if (!Array.isArray(b.transactions)) throw new IdxError('UPSTREAM_BAD_RESPONSE', `the upstream sent block ${heights[i]} without its transactions`);
        if (i > 0 && lower(b.parentHash) !== lower(blocks[i - 1]!.hash))
          throw inconsistent(`block ${heights[i]} does not follow block ${heights[i - 1]} (the upstream reorganised while we fetched)`);
      });
      const receipts = await receiptsOf(blocks, byBlock);
      return blocks.map((b, i) => {
        const txs = b.transactions as Wire[];
        const rs = receipts[i]!;
        const hash = lower(b.hash);
        if (rs.length !== txs.length || rs.some((r, k) => lower(r.blockHash) !== hash || lower(r.transactionHash) !== lower(txs[k]!.hash))) {
          throw inconsistent(`the receipts of block ${heights[i]} are not those of block ${hash} (the upstream reorganised while we fetched)`);
        }
        // kept as sent, transactions as hashes: the full form is put back together when served
        const body = JSON.stringify({ ...b, transactions: txs.map((t) => t.hash) });
        return {
          number: heights[i]!,
          hash,
          parentHash: lower(b.parentHash),
          body,
          transactions: txs.map((t, k) => ({ hash: lower(t.hash), tx: JSON.stringify(t), receipt: JSON.stringify(rs[k]) })),
          logs: rs.flatMap((r) =>
            ((r.logs ?? []) as Wire[]).map((l) => ({
              address: lower(l.address),
              topics: ((l.topics ?? []) as unknown[]).map(lower),
              log: JSON.stringify(l),
            })),
          ),
        };
      });
    },

    async hashes(heights) {
      const raw = (await client.batch(heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(h), false] })))) as (Wire | null)[];
      return raw.map((b) => (b === null ? null : lower(b.hash)));
    },
  };
}

function lower(v: unknown): string {
  if (typeof v !== 'string') throw new IdxError('UPSTREAM_BAD_RESPONSE', `expected 0x-hex from the upstream, got ${JSON.stringify(v)}`);
  return v.toLowerCase();
}

function inconsistent(message: string): IdxError {
  return new IdxError('UPSTREAM_INCONSISTENT', message, { retryable: true });
}
