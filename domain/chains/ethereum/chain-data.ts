/**
 * EVM chain data as the domain sees it: quantities are numbers (heights, indexes, timestamps in
 * seconds) or bigint (wei, gas); hashes, addresses and data stay lowercase 0x-hex strings.
 * `infra/chains/ethereum` turns the JSON-RPC wire format into these and back.
 */
import type { BlockRef } from '../../blocks/chain-heads.ts';

export interface EthLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
}

export interface EthTransaction {
  hash: string;
  blockNumber: number;
  blockHash: string;
  transactionIndex: number;
  from: string;
  /** null for contract creation */
  to: string | null;
  value: bigint;
  input: string;
  gas: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  nonce: number;
  type?: number;
  chainId?: number;
  v?: bigint;
  r?: string;
  s?: string;
}

export interface EthReceipt {
  transactionHash: string;
  transactionIndex: number;
  blockHash: string;
  blockNumber: number;
  from: string;
  to: string | null;
  contractAddress: string | null;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  effectiveGasPrice?: bigint;
  /** 1 success, 0 failure */
  status: number;
  logs: EthLog[];
  logsBloom: string;
  type?: number;
  /** receipts before Byzantium: the post-transaction state root, in place of a status */
  root?: string;
}

export interface EthBlock extends BlockRef {
  miner: string;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  difficulty: bigint;
  totalDifficulty?: bigint;
  extraData: string;
  logsBloom: string;
  nonce: string;
  receiptsRoot: string;
  sha3Uncles: string;
  size: number;
  stateRoot: string;
  transactionsRoot: string;
  mixHash?: string;
  uncles: string[];
  /** full transactions when asked for, else absent (only hashes were fetched) */
  transactions?: EthTransaction[];
  transactionHashes: string[];
}

/** One `eth_getLogs` query: an inclusive height range, optional addresses and topic positions. */
export interface LogQuery {
  fromBlock: number;
  toBlock: number;
  /** any of these addresses; absent = any address */
  address?: string[];
  /** per position: null = any, else any of the listed 32-byte values */
  topics?: (string[] | null)[];
}
