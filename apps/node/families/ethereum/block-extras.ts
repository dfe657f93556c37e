import type { EthLog, EthTransaction } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { BlockExtras } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { IdxError } from '../../../../domain/errors.ts';
import type { FetchedRange } from './fetch-range.ts';

/** The block data a mapping asked for: the block's full transactions and/or every log of it. */
export interface LoadedExtras {
  transactions?: EthTransaction[];
  logs?: EthLog[];
}

/**
 * Block data mappings read beyond what matching needs (`log.transaction`, `block.transactions`,
 * every log in `block.logs` and `tx.logs`). A project that never reads them never fetches them.
 * The first read loads them for every block of the range being processed in one batch; from then
 * on the fetch plans ask for them with the blocks, ahead of processing.
 */
export interface BlockExtrasLoader {
  /** what fetch plans must ask for: what mappings have read so far (everything when prefetching) */
  wanted(): BlockExtras | undefined;
  /** the range whose blocks are being processed */
  use(range: FetchedRange): void;
  load(height: number, want: BlockExtras): Promise<LoadedExtras>;
}

export interface BlockExtrasOptions {
  /** ask for everything from the start (--unsafe: its node:vm sandbox cannot wait for a lazy load) */
  prefetch: boolean;
  /** told once per kind of data that mappings turned out to read */
  onLearn?: (message: string) => void;
}

export function createBlockExtrasLoader(source: ChainSource, options: BlockExtrasOptions): BlockExtrasLoader {
  const learned: BlockExtras = { transactions: options.prefetch, logs: options.prefetch };
  let range: FetchedRange | undefined;

  const changed = (height: number) =>
    new IdxError('CHAIN_CHANGED_DURING_FETCH', `block ${height} changed while its transactions or logs were fetched (a reorganisation); index it again`, {
      retryable: true,
    });

  async function loadTransactions(target: FetchedRange): Promise<void> {
    const heights = [...target.blocks.values()].filter((b) => b.transactions === undefined).map((b) => b.height);
    if (heights.length === 0) return;
    const full = await source.getBlocks(heights, { transactions: true });
    for (const b of full) {
      const kept = target.blocks.get(b.height)!;
      if (kept.hash !== b.hash) throw changed(b.height);
      kept.transactions = b.transactions;
    }
  }

  async function loadLogs(target: FetchedRange): Promise<void> {
    if (target.logsComplete) return;
    const heights = [...target.blocks.keys()].sort((a, b) => a - b);
    const lists = await source.getBlockLogs(heights);
    heights.forEach((h, i) => {
      const list = lists[i]!.filter((l) => !l.removed);
      if (list.some((l) => l.blockHash !== target.blocks.get(h)!.hash)) throw changed(h);
      target.logs.set(h, list);
    });
    target.logsComplete = true;
  }

  return {
    wanted: () => (learned.transactions || learned.logs ? { ...learned } : undefined),
    use(r) {
      range = r;
    },
    async load(height, want) {
      const target = range;
      if (target === undefined || !target.blocks.has(height))
        throw new IdxError('BLOCK_NOT_IN_RANGE', `block ${height} is not being processed: its transactions and logs cannot be loaded`);
      if (want.transactions) {
        await loadTransactions(target);
        if (!learned.transactions)
          options.onLearn?.('the mappings read transactions (log.transaction or block.transactions): fetching full transactions with the blocks from now on');
        learned.transactions = true;
      }
      if (want.logs) {
        await loadLogs(target);
        if (!learned.logs) options.onLearn?.('the mappings read every log of a block (block.logs or tx.logs): fetching all logs of the blocks from now on');
        learned.logs = true;
      }
      const out: LoadedExtras = {};
      if (want.transactions) out.transactions = target.blocks.get(height)!.transactions ?? [];
      if (want.logs) out.logs = target.logs.get(height) ?? [];
      return out;
    },
  };
}
