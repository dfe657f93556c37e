import { getAddress } from 'viem/utils';
import { memoRecent } from '../../../../domain/memo-recent.ts';
import type { EthBlock, EthLog, EthReceipt, EthTransaction } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { WireRecord } from '../../isolate/wire.ts';

/**
 * The domain's chain data → the field types of SubQuery's `@subql/types-ethereum` (what its
 * node-ethereum 6.x `formatBlock`/`formatLog`/`formatTransaction`/`formatReceipt` produce):
 * block `number` a number and `timestamp`/`gasLimit`/`difficulty`/`size` bigint; transaction
 * `value`/`gas`/`gasPrice`/`nonce`/`transactionIndex` bigint and `type`/`chainId` hex strings;
 * log indexes numbers; receipt `status` a boolean; addresses of logs, transactions and receipts
 * checksummed (SubQuery's logs come from ethers, which checksums them). The block's `miner` stays
 * as the RPC gave it, as in SubQuery.
 */
export function toWireBlock(block: EthBlock): WireRecord {
  return {
    hash: block.hash,
    parentHash: block.parentHash,
    number: block.height,
    timestamp: BigInt(block.timestamp),
    miner: block.miner,
    gasLimit: block.gasLimit,
    gasUsed: block.gasUsed,
    baseFeePerGas: block.baseFeePerGas,
    difficulty: block.difficulty,
    totalDifficulty: block.totalDifficulty ?? 0n,
    extraData: block.extraData,
    logsBloom: block.logsBloom,
    nonce: block.nonce,
    receiptsRoot: block.receiptsRoot,
    sha3Uncles: block.sha3Uncles,
    size: BigInt(block.size),
    stateRoot: block.stateRoot,
    transactionsRoot: block.transactionsRoot,
    mixHash: block.mixHash,
    uncles: block.uncles,
  };
}

export function toWireTransaction(tx: EthTransaction, blockTimestamp: number): WireRecord {
  return {
    hash: tx.hash,
    blockHash: tx.blockHash,
    blockNumber: tx.blockNumber,
    blockTimestamp: BigInt(blockTimestamp),
    transactionIndex: BigInt(tx.transactionIndex),
    from: checksum(tx.from),
    to: tx.to === null ? null : checksum(tx.to),
    value: tx.value,
    input: tx.input,
    gas: tx.gas,
    gasPrice: tx.gasPrice ?? 0n,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    nonce: BigInt(tx.nonce),
    type: tx.type === undefined ? '0x0' : hex(tx.type),
    chainId: tx.chainId === undefined ? undefined : hex(tx.chainId),
    v: tx.v ?? 0n,
    r: tx.r,
    s: tx.s,
  };
}

export function toWireLog(log: EthLog): WireRecord {
  return {
    address: checksum(log.address),
    topics: log.topics,
    data: log.data,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    transactionHash: log.transactionHash,
    transactionIndex: log.transactionIndex,
    logIndex: log.logIndex,
    removed: log.removed,
  };
}

export function toWireReceipt(receipt: EthReceipt): WireRecord {
  return {
    transactionHash: receipt.transactionHash,
    transactionIndex: receipt.transactionIndex,
    blockHash: receipt.blockHash,
    blockNumber: receipt.blockNumber,
    from: checksum(receipt.from),
    to: receipt.to === null ? null : checksum(receipt.to),
    contractAddress: receipt.contractAddress === null ? null : checksum(receipt.contractAddress),
    cumulativeGasUsed: receipt.cumulativeGasUsed,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice ?? 0n,
    status: receipt.status === 1,
    logs: receipt.logs.map(toWireLog),
    logsBloom: receipt.logsBloom,
    type: receipt.type === undefined ? '0x0' : hex(receipt.type),
  };
}

// every log's address and every transaction's from and to: remembered (as in abi-decoder.ts, viem's own LRU costs more)
const checksum = memoRecent(8192, (address: string): string => {
  try {
    return getAddress(address);
  } catch {
    return address;
  }
});

function hex(n: number): string {
  return `0x${n.toString(16)}`;
}
