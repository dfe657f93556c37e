import { BigNumber } from '../../big-number.ts';
import type { HostOp } from '../../wire.ts';

type Call = (op: HostOp, args: unknown[]) => Promise<unknown>;
type BlockTag = number | string | undefined;

/**
 * The `api` global: just enough of an ethers v5 Provider for typechain contracts and direct reads
 * (`call`, `getBalance`, `getCode`, `getStorageAt`, `getTransactionCount`, `getNetwork`). `api` is
 * pinned to the block being processed and ignores a caller's block tag, as SubQuery's SafeEthProvider
 * does; `unsafeApi` (--unsafe) honours it and adds `getBlockNumber` and `send`.
 */
export function createEthProvider(call: Call, chainId: string, pinnedHeight: (() => number) | undefined) {
  const tag = (blockTag: BlockTag): string => {
    if (pinnedHeight !== undefined) return `0x${pinnedHeight().toString(16)}`;
    if (blockTag === undefined || blockTag === null) return 'latest';
    if (typeof blockTag === 'number') return `0x${blockTag.toString(16)}`;
    return blockTag;
  };
  const resolve = async (tx: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const k of ['to', 'data', 'from']) {
      const v = await tx[k];
      if (v !== undefined && v !== null) out[k] = String(v);
    }
    return out;
  };
  const provider: Record<string, unknown> = {
    _isProvider: true,
    async call(transaction: Record<string, unknown>, blockTag?: BlockTag): Promise<string> {
      const t = tag(await blockTag);
      return (await call('ethCall', [await resolve(await transaction), t === 'latest' ? 'latest' : Number(BigInt(t))])) as string;
    },
    async getBalance(address: string, blockTag?: BlockTag): Promise<BigNumber> {
      return BigNumber.from((await call('request', ['eth_getBalance', [await address, tag(await blockTag)]])) as string);
    },
    async getTransactionCount(address: string, blockTag?: BlockTag): Promise<number> {
      return Number(BigInt((await call('request', ['eth_getTransactionCount', [await address, tag(await blockTag)]])) as string));
    },
    async getCode(address: string, blockTag?: BlockTag): Promise<string> {
      return (await call('request', ['eth_getCode', [await address, tag(await blockTag)]])) as string;
    },
    async getStorageAt(address: string, position: unknown, blockTag?: BlockTag): Promise<string> {
      const pos = `0x${BigNumber.from((await position) as string)
        .toBigInt()
        .toString(16)}`;
      return (await call('request', ['eth_getStorageAt', [await address, pos, tag(await blockTag)]])) as string;
    },
    async getNetwork(): Promise<{ chainId: number; name: string }> {
      return { chainId: Number(chainId), name: 'unknown' };
    },
  };
  if (pinnedHeight === undefined) {
    provider.getBlockNumber = async (): Promise<number> => Number(BigInt((await call('request', ['eth_blockNumber', []])) as string));
    provider.send = (method: string, params: unknown[] = []) => call('request', [method, params]);
  } else {
    for (const name of [
      'getBlock',
      'getBlockWithTransactions',
      'getTransaction',
      'getTransactionReceipt',
      'getLogs',
      'getBlockNumber',
      'getGasPrice',
      'estimateGas',
      'sendTransaction',
    ]) {
      provider[name] = () =>
        Promise.reject(
          new Error(
            `api.${name} is not supported: \`api\` only reads state at the block being processed (use tx.receipt() for receipts, or unsafeApi with --unsafe)`,
          ),
        );
    }
  }
  return provider;
}
