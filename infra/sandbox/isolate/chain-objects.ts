import { rebuildArgs } from './rebuild-args.ts';
import type { BlockPayload, WireRecord, WireResult } from './wire.ts';

/**
 * SubQuery's EthereumBlock / EthereumLog / EthereumTransaction / EthereumReceipt, rebuilt from the
 * plain data of one block: the host already gave every field its SubQuery type (bigint, number,
 * checksummed address); here they get their links (`log.block`, `log.transaction`, `tx.logs`,
 * `block.logs`), `tx.receipt()` and decoded `args`.
 */
export interface ChainObjects {
  block: Record<string, unknown>;
  logs: Record<string, unknown>[];
  transactions: Record<string, unknown>[];
}

export type FetchReceipt = (hash: string) => Promise<WireRecord>;

function omitLinks(this: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(this)) if (k !== 'block' && k !== 'transaction' && k !== 'logs') out[k] = this[k];
  return out;
}

export function buildChainObjects(payload: BlockPayload, fetchReceipt: FetchReceipt): ChainObjects {
  const block: Record<string, unknown> = payload.block;
  const byHash = new Map<string, Record<string, unknown>>();
  const transactions = payload.transactions.map((tx) => {
    const hash = tx.hash as string;
    let receipt: Promise<Record<string, unknown>> | undefined;
    Object.defineProperty(tx, 'receipt', {
      value: () => (receipt ??= fetchReceipt(hash).then((r) => buildReceipt(r, block, byHash))),
      enumerable: false,
    });
    Object.defineProperty(tx, 'toJSON', { value: omitLinks, enumerable: false });
    tx.logs = [];
    byHash.set(hash, tx);
    return tx;
  });
  const logs = payload.logs.map((log) => linkLog(log, block, byHash));
  for (const log of logs) (byHash.get(log.transactionHash as string)?.logs as unknown[] | undefined)?.push(log);
  block.logs = logs;
  block.transactions = transactions;
  return { block, logs, transactions };
}

function linkLog(log: Record<string, unknown>, block: Record<string, unknown>, byHash: Map<string, Record<string, unknown>>): Record<string, unknown> {
  log.block = block;
  Object.defineProperty(log, 'transaction', { get: () => byHash.get(log.transactionHash as string), enumerable: false, configurable: true });
  Object.defineProperty(log, 'toJSON', { value: omitLinks, enumerable: false });
  return log;
}

function buildReceipt(receipt: WireRecord, block: Record<string, unknown>, byHash: Map<string, Record<string, unknown>>): Record<string, unknown> {
  receipt.logs = ((receipt.logs as WireRecord[] | undefined) ?? []).map((l) => linkLog(l, block, byHash));
  return receipt;
}

export function setArgs(target: Record<string, unknown>, wire: WireResult | undefined): void {
  target.args = wire === undefined ? undefined : rebuildArgs(wire);
}
