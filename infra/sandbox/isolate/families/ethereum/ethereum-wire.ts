import type { BlockPayload, WireRecord, WireResult } from '../../wire.ts';

/** The kinds of an EVM block's calls: the block, one of its logs, one of its transactions. */
export const EVM_CALL = { block: 0, log: 1, transaction: 2 } as const;

/**
 * An EVM handler call: handler, kind, index, decoded args, and for transactions the decoded args
 * of its logs by log position.
 */
export type EvmWireCall = [handler: string, kind: number, index: number, args?: WireResult, txLogArgs?: [number, WireResult][]];

/** An EVM block as it crosses. */
export interface EvmBlockPayload extends BlockPayload {
  /** SubQuery's EthereumBlock fields without `logs`/`transactions` */
  block: WireRecord;
  /** the block's full transactions; null when it was fetched without them (loaded on first read) */
  transactions: WireRecord[] | null;
  /** the logs the calls refer to, in log-index order */
  logs: WireRecord[];
  /** `logs` holds every log of the block; when not, `block.logs`/`tx.logs` load them on first read */
  logsComplete: boolean;
  calls: EvmWireCall[];
}

/** The answer to `blockExtras`: what the running block lacked, and the args of its transaction calls' logs. */
export interface BlockExtrasWire {
  transactions?: WireRecord[];
  logs?: WireRecord[];
  /** per transaction call with an ABI: the decoded args of its transaction's logs, by position in `logs` */
  txLogArgs?: [call: number, args: [number, WireResult][]][];
}
