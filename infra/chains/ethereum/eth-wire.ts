import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import type { EthBlock, EthLog, EthReceipt, EthTransaction } from '../../../domain/chains/ethereum/chain-data.ts';
import { IdxError } from '../../../domain/errors.ts';
import { hexToBigInt, hexToNumber, toLowerHex } from '../../rpc/hex-quantity.ts';

/**
 * JSON-RPC block, transaction, log and receipt objects → domain values. Providers disagree on the
 * optional fields (anvil has no `totalDifficulty`, L2s add their own, pre-merge and pre-London
 * chains lack `baseFeePerGas`…), so only what every Ethereum node returns is required; anything
 * else is read when present and left out otherwise.
 */
type Wire = Record<string, unknown>;

export function toBlockRef(raw: unknown): BlockRef {
  const b = object(raw, 'block');
  return {
    height: hexToNumber(b.number, 'block number'),
    hash: toLowerHex(b.hash, 'block hash'),
    parentHash: toLowerHex(b.parentHash, 'block parentHash'),
    timestamp: hexToNumber(b.timestamp, 'block timestamp'),
  };
}

/** `full`: the block was fetched with its transactions (an empty list looks the same either way). */
export function toEthBlock(raw: unknown, options: { full: boolean }): EthBlock {
  const b = object(raw, 'block');
  const ref = toBlockRef(b);
  const txs = Array.isArray(b.transactions) ? b.transactions : [];
  const transactions = options.full ? txs.map(toEthTransaction) : undefined;
  const block: EthBlock = {
    ...ref,
    miner: toLowerHex(b.miner ?? b.author ?? ZERO_ADDRESS, 'block miner'),
    gasLimit: hexToBigInt(b.gasLimit, 'block gasLimit'),
    gasUsed: hexToBigInt(b.gasUsed, 'block gasUsed'),
    difficulty: b.difficulty == null ? 0n : hexToBigInt(b.difficulty, 'block difficulty'),
    extraData: toLowerHex(b.extraData ?? '0x', 'block extraData'),
    logsBloom: toLowerHex(b.logsBloom ?? '0x', 'block logsBloom'),
    nonce: toLowerHex(b.nonce ?? '0x0000000000000000', 'block nonce'),
    receiptsRoot: toLowerHex(b.receiptsRoot, 'block receiptsRoot'),
    sha3Uncles: toLowerHex(b.sha3Uncles ?? EMPTY_UNCLES_HASH, 'block sha3Uncles'),
    size: b.size == null ? 0 : hexToNumber(b.size, 'block size'),
    stateRoot: toLowerHex(b.stateRoot, 'block stateRoot'),
    transactionsRoot: toLowerHex(b.transactionsRoot, 'block transactionsRoot'),
    uncles: Array.isArray(b.uncles) ? b.uncles.map((u) => toLowerHex(u, 'uncle hash')) : [],
    transactionHashes: transactions ? transactions.map((t) => t.hash) : txs.map((h) => toLowerHex(h, 'transaction hash')),
  };
  if (b.baseFeePerGas != null) block.baseFeePerGas = hexToBigInt(b.baseFeePerGas, 'block baseFeePerGas');
  if (b.totalDifficulty != null) block.totalDifficulty = hexToBigInt(b.totalDifficulty, 'block totalDifficulty');
  if (b.mixHash != null) block.mixHash = toLowerHex(b.mixHash, 'block mixHash');
  if (transactions !== undefined) block.transactions = transactions;
  return block;
}

export function toEthTransaction(raw: unknown): EthTransaction {
  const t = object(raw, 'transaction');
  const tx: EthTransaction = {
    hash: toLowerHex(t.hash, 'transaction hash'),
    blockNumber: hexToNumber(t.blockNumber, 'transaction blockNumber'),
    blockHash: toLowerHex(t.blockHash, 'transaction blockHash'),
    transactionIndex: hexToNumber(t.transactionIndex, 'transaction transactionIndex'),
    from: toLowerHex(t.from, 'transaction from'),
    to: t.to == null ? null : toLowerHex(t.to, 'transaction to'),
    value: hexToBigInt(t.value, 'transaction value'),
    input: toLowerHex(t.input ?? t.data ?? '0x', 'transaction input'),
    gas: hexToBigInt(t.gas, 'transaction gas'),
    nonce: hexToNumber(t.nonce, 'transaction nonce'),
  };
  if (t.gasPrice != null) tx.gasPrice = hexToBigInt(t.gasPrice, 'transaction gasPrice');
  if (t.maxFeePerGas != null) tx.maxFeePerGas = hexToBigInt(t.maxFeePerGas, 'transaction maxFeePerGas');
  if (t.maxPriorityFeePerGas != null) tx.maxPriorityFeePerGas = hexToBigInt(t.maxPriorityFeePerGas, 'transaction maxPriorityFeePerGas');
  if (t.type != null) tx.type = hexToNumber(t.type, 'transaction type');
  if (t.chainId != null) tx.chainId = hexToNumber(t.chainId, 'transaction chainId');
  if (t.v != null) tx.v = hexToBigInt(t.v, 'transaction v');
  if (t.r != null) tx.r = toLowerHex(t.r, 'transaction r');
  if (t.s != null) tx.s = toLowerHex(t.s, 'transaction s');
  return tx;
}

export function toEthLog(raw: unknown): EthLog {
  const l = object(raw, 'log');
  return {
    address: toLowerHex(l.address, 'log address'),
    topics: Array.isArray(l.topics) ? l.topics.map((x) => toLowerHex(x, 'log topic')) : [],
    data: toLowerHex(l.data ?? '0x', 'log data'),
    blockNumber: hexToNumber(l.blockNumber, 'log blockNumber'),
    blockHash: toLowerHex(l.blockHash, 'log blockHash'),
    transactionHash: toLowerHex(l.transactionHash, 'log transactionHash'),
    transactionIndex: hexToNumber(l.transactionIndex, 'log transactionIndex'),
    logIndex: hexToNumber(l.logIndex, 'log logIndex'),
    removed: l.removed === true,
  };
}

export function toEthReceipt(raw: unknown): EthReceipt {
  const r = object(raw, 'receipt');
  const receipt: EthReceipt = {
    transactionHash: toLowerHex(r.transactionHash, 'receipt transactionHash'),
    transactionIndex: hexToNumber(r.transactionIndex, 'receipt transactionIndex'),
    blockHash: toLowerHex(r.blockHash, 'receipt blockHash'),
    blockNumber: hexToNumber(r.blockNumber, 'receipt blockNumber'),
    from: toLowerHex(r.from, 'receipt from'),
    to: r.to == null ? null : toLowerHex(r.to, 'receipt to'),
    contractAddress: r.contractAddress == null ? null : toLowerHex(r.contractAddress, 'receipt contractAddress'),
    cumulativeGasUsed: hexToBigInt(r.cumulativeGasUsed, 'receipt cumulativeGasUsed'),
    gasUsed: hexToBigInt(r.gasUsed, 'receipt gasUsed'),
    // receipts before Byzantium carry a state `root` instead of a status; their transactions did not revert
    status: r.status == null ? 1 : hexToNumber(r.status, 'receipt status'),
    logs: Array.isArray(r.logs) ? r.logs.map(toEthLog) : [],
    logsBloom: toLowerHex(r.logsBloom ?? '0x', 'receipt logsBloom'),
  };
  if (r.effectiveGasPrice != null) receipt.effectiveGasPrice = hexToBigInt(r.effectiveGasPrice, 'receipt effectiveGasPrice');
  if (r.type != null) receipt.type = hexToNumber(r.type, 'receipt type');
  if (r.status == null && r.root != null) receipt.root = toLowerHex(r.root, 'receipt root');
  return receipt;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** keccak256 of the RLP of an empty list: the uncles hash of every block without uncles */
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

function object(raw: unknown, what: string): Wire {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new IdxError('RPC_BAD_RESPONSE', `expected a ${what} object from the endpoint, got ${raw === null ? 'null' : typeof raw}`);
  }
  return raw as Wire;
}
