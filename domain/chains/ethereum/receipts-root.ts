import { hexToBytes } from 'viem/utils';
import type { EthLog, EthReceipt } from './chain-data.ts';
import { concat, integerBytes, rlpBytes, rlpList } from './rlp.ts';
import { orderedTrieRoot } from './trie-root.ts';

/** What of a receipt its trie entry holds. */
export interface ReceiptFields extends Pick<EthReceipt, 'status' | 'root' | 'cumulativeGasUsed' | 'logsBloom' | 'type'> {
  logs: readonly Pick<EthLog, 'address' | 'topics' | 'data'>[];
}

/**
 * A receipt as the receipts trie holds it: rlp([status or post-state root, cumulative gas,
 * bloom, logs]), prefixed by its type byte when typed (EIP-2718: access list 1, dynamic fee 2,
 * blob 3, set code 4). Receipts before Byzantium carry the post-state root instead of a status.
 */
export function encodeReceipt(receipt: ReceiptFields): Uint8Array {
  const outcome = receipt.root !== undefined ? hexToBytes(receipt.root as `0x${string}`) : integerBytes(receipt.status);
  const body = rlpList([
    rlpBytes(outcome),
    rlpBytes(integerBytes(receipt.cumulativeGasUsed)),
    rlpBytes(hexToBytes(receipt.logsBloom as `0x${string}`)),
    rlpList(
      receipt.logs.map((l) =>
        rlpList([
          rlpBytes(hexToBytes(l.address as `0x${string}`)),
          rlpList(l.topics.map((t) => rlpBytes(hexToBytes(t as `0x${string}`)))),
          rlpBytes(hexToBytes(l.data as `0x${string}`)),
        ]),
      ),
    ),
  ]);
  const type = receipt.type ?? 0;
  return type === 0 ? body : concat([Uint8Array.of(type), body]);
}

/** The receipts root a block header commits to, from the block's receipts in transaction order. */
export function receiptsRoot(receipts: readonly ReceiptFields[]): string {
  return orderedTrieRoot(receipts.map(encodeReceipt));
}
