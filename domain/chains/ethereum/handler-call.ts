import type { JsonAbi } from '../../mapping/json-abi.ts';
import type { EthBlock, EthLog } from './chain-data.ts';

/**
 * One block as the sandbox receives it: the block (with `transactions` when they were fetched)
 * and the block's logs that were fetched, in log-index order. What a mapping reads beyond that is
 * loaded through `MappingHost.blockExtras`.
 */
export interface BlockContent {
  block: EthBlock;
  logs: readonly EthLog[];
  /** `logs` is every log of the block; when not, the sandbox loads them when a mapping reads `block.logs` or `tx.logs` */
  logsComplete?: boolean;
}

/** One handler invocation of a block, in the order the handlers must run. */
export type HandlerCall =
  | { handler: string; kind: 'block' }
  /** `index` into `BlockContent.logs`; `abi` decodes `log.args` */
  | { handler: string; kind: 'log'; index: number; abi?: JsonAbi }
  /** `index` into `BlockContent.block.transactions`; `abi` decodes `tx.args` and the args of `tx.logs` */
  | { handler: string; kind: 'transaction'; index: number; abi?: JsonAbi };
