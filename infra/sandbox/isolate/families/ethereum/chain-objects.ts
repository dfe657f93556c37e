import { lazyProperty } from '../../lazy-property.ts';
import { rebuildArgs } from '../../rebuild-args.ts';
import type { WireRecord, WireResult } from '../../wire.ts';
import { EVM_CALL, type BlockExtrasWire, type EvmBlockPayload, type EvmWireCall } from './ethereum-wire.ts';

/**
 * SubQuery's EthereumBlock / EthereumLog / EthereumTransaction / EthereumReceipt, rebuilt from the
 * plain data of one block: the host already gave every field its SubQuery type (bigint, number,
 * checksummed address); here they get their links (`log.block`, `log.transaction`, `tx.logs`,
 * `block.logs`, `block.transactions`), `tx.receipt()` and decoded `args`.
 *
 * As in SubQuery, `block.transactions` is every transaction of the block and `block.logs`,
 * `tx.logs` every log of the block / transaction, not only the matched ones. When the host sent
 * the block without them, the first read loads them (one synchronous host call per block), so
 * projects that never read them never pay for them.
 */
export interface ChainObjects {
  block: Record<string, unknown>;
  /** the logs the calls refer to, by position */
  logs: Record<string, unknown>[];
  /** the block's transactions (loaded on first read when the payload lacks them) */
  readonly transactions: Record<string, unknown>[];
  /** before call `call` runs; a transaction call's ABI decodes the args of its transaction's logs */
  enterCall(call: number, transaction: boolean): void;
  /** call `call`'s handler argument (the block, a log, a transaction, with its decoded `args`), as the call begins */
  argOf(call: number, wire: EvmWireCall): Record<string, unknown>;
}

type Rec = Record<string, unknown>;
export type FetchReceipt = (hash: string) => Promise<WireRecord>;
/** asks the host for what the payload lacks; undefined where the sandbox cannot wait (node:vm) */
export type LoadExtras = (want: { transactions: boolean; logs: boolean }) => BlockExtrasWire;

function omitLinks(this: Rec): Rec {
  const out: Rec = {};
  for (const k of Object.keys(this)) if (k !== 'block' && k !== 'transaction' && k !== 'logs') out[k] = this[k];
  return out;
}

/**
 * Each block's transaction lookup, by its block object. Every log's `transaction` is the one getter below, which
 * finds its block through `log.block`: a getter made per log gave each log a shape of its own, and V8 then kept
 * the logs as dictionaries, several times slower for every property a handler reads.
 */
const transactionLookups = new WeakMap<object, (hash: string) => Rec | undefined>();

function logTransaction(this: Rec): Rec | undefined {
  const block = this.block;
  return typeof block === 'object' && block !== null ? transactionLookups.get(block)?.(this.transactionHash as string) : undefined;
}

export function buildChainObjects(payload: EvmBlockPayload, fetchReceipt: FetchReceipt, loadExtras: LoadExtras | undefined): ChainObjects {
  const block: Rec = payload.block;
  const byHash = new Map<string, Rec>();
  let transactions: Rec[] | undefined;
  let allLogs: Rec[] | undefined;
  let running = -1;
  // per transaction call, args of its transaction's logs, by position in `allLogs` (else the matched logs)
  let txLogArgs = new Map<number, [number, WireResult][]>();
  payload.calls.forEach((c, i) => c[4] !== undefined && txLogArgs.set(i, c[4]));

  const transactionOf = (hash: string): Rec | undefined => {
    ensure(true, false);
    return byHash.get(hash);
  };
  transactionLookups.set(block, transactionOf);
  const linkLog = (log: Rec): Rec => {
    log.block = block;
    Object.defineProperty(log, 'transaction', { get: logTransaction, enumerable: false, configurable: true });
    Object.defineProperty(log, 'toJSON', { value: omitLinks, enumerable: false });
    return log;
  };
  const matched = payload.logs.map(linkLog);

  const applyTxLogArgs = (call: number) => {
    const list = allLogs ?? matched;
    for (const [position, args] of txLogArgs.get(call) ?? []) setArgs(list[position]!, args);
  };

  const assignTxLogs = () => {
    for (const tx of transactions!) Object.defineProperty(tx, 'logs', { value: [], writable: true, enumerable: true, configurable: true });
    for (const log of allLogs!) (byHash.get(log.transactionHash as string)?.logs as unknown[] | undefined)?.push(log);
  };

  const adoptTransactions = (wire: WireRecord[]) => {
    transactions = wire.map((tx) => {
      const hash = tx.hash as string;
      let receipt: Promise<Rec> | undefined;
      Object.defineProperty(tx, 'receipt', {
        value: () => (receipt ??= fetchReceipt(hash).then((r) => buildReceipt(r))),
        enumerable: false,
      });
      Object.defineProperty(tx, 'toJSON', { value: omitLinks, enumerable: false });
      if (allLogs === undefined) {
        lazyProperty(tx, 'logs', () => {
          ensure(false, true);
          return tx.logs;
        });
      }
      byHash.set(hash, tx);
      return tx;
    });
    if (allLogs !== undefined) assignTxLogs();
  };

  const adoptLogs = (wire: WireRecord[]) => {
    // The matched logs stay the same objects: `tx.logs` holds the very log a handler was given.
    const known = new Map(matched.map((l) => [l.logIndex, l]));
    allLogs = wire.map((l) => known.get(l.logIndex) ?? linkLog(l));
    if (transactions !== undefined) assignTxLogs();
  };

  function ensure(wantTransactions: boolean, wantLogs: boolean): void {
    const needTransactions = wantTransactions && transactions === undefined;
    const needLogs = wantLogs && allLogs === undefined;
    if (!needTransactions && !needLogs) return;
    if (loadExtras === undefined)
      throw new Error(
        `block ${String(block.number)} was handed over without its ${needTransactions ? 'transactions' : 'logs'} and this sandbox cannot load them`,
      );
    const extras = loadExtras({ transactions: needTransactions, logs: needLogs });
    if (extras.transactions !== undefined) adoptTransactions(extras.transactions);
    if (extras.logs !== undefined) {
      adoptLogs(extras.logs);
      txLogArgs = new Map(extras.txLogArgs ?? []);
      if (running >= 0) applyTxLogArgs(running);
    }
  }

  function buildReceipt(receipt: WireRecord): Rec {
    receipt.logs = ((receipt.logs as WireRecord[] | undefined) ?? []).map(linkLog);
    return receipt;
  }

  if (payload.logsComplete) adoptLogs(payload.logs);
  if (payload.transactions !== null) adoptTransactions(payload.transactions);
  lazyProperty(block, 'transactions', () => {
    ensure(true, false);
    return transactions;
  });
  lazyProperty(block, 'logs', () => {
    ensure(false, true);
    return allLogs;
  });

  return {
    block,
    logs: matched,
    get transactions() {
      ensure(true, false);
      return transactions!;
    },
    enterCall(call, transaction) {
      running = transaction ? call : -1;
      if (transaction) applyTxLogArgs(call);
    },
    argOf(call, wire) {
      const kind = wire[1];
      if (kind === EVM_CALL.block) {
        this.enterCall(call, false);
        return block;
      }
      let arg: Rec;
      if (kind === EVM_CALL.log) {
        this.enterCall(call, false);
        arg = matched[wire[2]]!;
      } else {
        this.enterCall(call, true);
        arg = this.transactions[wire[2]]!;
      }
      setArgs(arg, wire[3]);
      return arg;
    },
  };
}

export function setArgs(target: Record<string, unknown>, wire: WireResult | undefined): void {
  target.args = wire === undefined ? undefined : rebuildArgs(wire);
}
