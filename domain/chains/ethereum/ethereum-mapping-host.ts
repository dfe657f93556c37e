import type { MappingHost } from '../../mapping/mapping-host.ts';
import type { EthLog, EthReceipt, EthTransaction } from './chain-data.ts';

/** The mapping host of an EVM chain: the reads behind `api`, `tx.receipt()` and the block's lazily loaded parts. */
export interface EthereumMappingHost extends MappingHost {
  /** `eth_call` at `blockHeight` (`api` pins it to the block being processed); returns the 0x-hex result */
  ethCall(request: { to: string; data: string; from?: string }, blockHeight: number | 'latest'): Promise<string>;
  /**
   * The full transactions and/or every log of the block whose handlers run, when its content lacks
   * them: for `log.transaction`, `block.transactions`, `block.logs` and `tx.logs`.
   */
  blockExtras(height: number, want: { transactions: boolean; logs: boolean }): Promise<{ transactions?: EthTransaction[]; logs?: EthLog[] }>;
  /** `tx.receipt()` */
  getReceipt(transactionHash: string): Promise<EthReceipt>;
}
