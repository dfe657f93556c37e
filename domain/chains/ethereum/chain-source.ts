import type { ChainHeads } from '../../blocks/chain-heads.ts';
import type { EthBlock, EthLog, EthReceipt, LogQuery } from './chain-data.ts';

/** A read-only `eth_call`: the contract, the call data and, optionally, who calls. */
export interface CallRequest {
  to: string;
  data: string;
  from?: string;
}

/**
 * What the EVM family needs from a chain, in domain types (the heads part is every family's). Implementations batch their requests
 * (one round trip for many heights), retry what is worth retrying, and throw `IdxError`s whose
 * `retryable` tells the loop whether trying the same call later may succeed.
 */
export interface ChainSource extends ChainHeads {
  chainId(): Promise<number>;
  /** hash of block 0, to check that the endpoints serve the chain the manifest names */
  genesisHash(): Promise<string>;
  /** Blocks at these heights, in the same order; with `transactions` their full transactions. */
  getBlocks(heights: readonly number[], options: { transactions: boolean }): Promise<EthBlock[]>;
  /** Logs matching the query, ordered by block then log index; however the endpoint limits ranges. */
  getLogs(query: LogQuery): Promise<EthLog[]>;
  /** Every log of each of these blocks, in log-index order, in the same order as the heights. */
  getBlockLogs(heights: readonly number[]): Promise<EthLog[][]>;
  /** Receipts of these transactions, in the same order. */
  getReceipts(txHashes: readonly string[]): Promise<EthReceipt[]>;
  /** Every receipt of each of these blocks, in the same order: for handlers that read many receipts of a block. */
  getBlockReceipts(heights: readonly number[]): Promise<EthReceipt[][]>;
  /**
   * Which endpoint answered for `height` in `result` (what `getLogs`, `getBlockLogs`, `getBlocks`
   * or `getBlockReceipts` returned), when known: to name it when its answer proves wrong.
   */
  answeredBy?(result: readonly unknown[], height: number): string | undefined;
  /** An answer of this endpoint (as `answeredBy` names it) proved wrong: ask others first for a while. */
  distrust?(endpoint: string): void;
  /** `eth_call` against the state as of the block at `height` (after its transactions); returns the 0x-hex result. */
  call(request: CallRequest, height: number): Promise<string>;
}
