import type { EthLog, EthTransaction } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { BlockContent, HandlerCall } from '../../../../domain/chains/ethereum/handler-call.ts';
import type { JsonAbi } from '../../../../domain/mapping/json-abi.ts';
import type { AbiDecoder } from '../../abi-decoder.ts';
import { EVM_CALL, type EvmBlockPayload, type EvmWireCall } from '../../isolate/families/ethereum/ethereum-wire.ts';
import type { WireResult } from '../../isolate/wire.ts';
import { SandboxError } from '../../sandbox-error.ts';
import { toWireBlock, toWireLog, toWireTransaction } from './format-chain-data.ts';

/** What decoding a block's ABI args needs: the decoder of an ABI (one per ABI, kept), and where a log that does not match goes. */
export interface AbiArgs {
  decoder(abi: JsonAbi): AbiDecoder;
  warn(message: string): void;
}

/**
 * An EVM block and its handler calls as the sandbox's payload: the block, its transactions and
 * logs in SubQuery's field types, each call by kind and index with its ABI-decoded args.
 * `fresh`: the host dropped the last block (the sandbox clears its cache).
 */
export function evmPayload(content: BlockContent, calls: readonly HandlerCall[], fresh: boolean, abi: AbiArgs): EvmBlockPayload {
  const { block, logs } = content;
  const txs = block.transactions ?? [];
  // with only the matched logs at hand, tx.logs is loaded on first read, and decoded then
  const txLogArgs = new Map(content.logsComplete === true ? txLogArgsOf(calls, txs, logs, abi.decoder) : []);
  const wireCalls = calls.map((c, i): EvmWireCall => {
    if (c.kind === 'block') return [c.handler, EVM_CALL.block, 0];
    const list = c.kind === 'log' ? logs : txs;
    if (!Number.isInteger(c.index) || c.index < 0 || c.index >= list.length) {
      throw new SandboxError(
        'INVALID_HANDLER_CALL',
        `call ${i} (${c.handler}) refers to ${c.kind} ${c.index} of block ${block.height}, which has ${list.length}`,
        { handler: c.handler, height: block.height },
      );
    }
    if (c.kind === 'log') {
      const log = logs[c.index]!;
      return [c.handler, EVM_CALL.log, c.index, c.abi && decodeLogArgs(abi, c.abi, log.topics, log.data, c.handler)];
    }
    if (c.abi === undefined) return [c.handler, EVM_CALL.transaction, c.index];
    return [c.handler, EVM_CALL.transaction, c.index, abi.decoder(c.abi).decodeInput(txs[c.index]!.input), txLogArgs.get(i)];
  });
  return {
    height: block.height,
    fresh,
    block: toWireBlock(block),
    transactions: block.transactions === undefined ? null : block.transactions.map((tx) => toWireTransaction(tx, block.timestamp)),
    logs: logs.map(toWireLog),
    logsComplete: content.logsComplete === true,
    calls: wireCalls,
  };
}

/** per transaction call with an ABI, its args of the transaction's logs, by position in `logs` */
export function txLogArgsOf(
  calls: readonly HandlerCall[],
  txs: readonly EthTransaction[],
  logs: readonly EthLog[],
  decoder: AbiArgs['decoder'],
): [number, [number, WireResult][]][] {
  const out: [number, [number, WireResult][]][] = [];
  calls.forEach((c, i) => {
    if (c.kind !== 'transaction' || c.abi === undefined) return;
    const tx = txs[c.index]!;
    const d = decoder(c.abi);
    const args: [number, WireResult][] = [];
    logs.forEach((log, li) => {
      if (log.transactionHash !== tx.hash) return;
      const decoded = d.decodeLog(log.topics, log.data);
      if (decoded !== undefined) args.push([li, decoded]);
    });
    out.push([i, args]);
  });
  return out;
}

function decodeLogArgs(abi: AbiArgs, json: JsonAbi, topics: readonly string[], data: string, handler: string): WireResult | undefined {
  const args = abi.decoder(json).decodeLog(topics, data);
  if (args === undefined) abi.warn(`${handler}: the log with topic ${topics[0] ?? '(none)'} does not match the data source's ABI; log.args is undefined`);
  return args;
}
