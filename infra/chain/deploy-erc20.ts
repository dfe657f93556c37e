import { encodeDeployData } from 'viem';
import { IdxError } from '../../domain/errors.ts';
import type { RpcClient } from '../rpc/create-rpc-client.ts';
import { hexToNumber, toLowerHex } from '../rpc/hex-quantity.ts';
import { testErc20Abi, testErc20Bytecode } from './contracts/test-erc20.artifact.ts';
import { ANVIL_DEV_ACCOUNT } from './start-anvil.ts';

export interface DeployedErc20 {
  address: string;
  /** the block of the deployment: a data source's `startBlock` */
  blockNumber: number;
  transactionHash: string;
}

/**
 * Deploys the test ERC20 to an anvil chain from an unlocked account (anvil's first dev account by
 * default). Works with automine on or off: without a receipt it mines a block itself.
 */
export async function deployErc20(client: RpcClient, options: { name?: string; symbol?: string; from?: string } = {}): Promise<DeployedErc20> {
  const data = encodeDeployData({ abi: testErc20Abi, bytecode: testErc20Bytecode, args: [options.name ?? 'Test Token', options.symbol ?? 'TEST'] });
  const hash = await client.request<string>('eth_sendTransaction', [{ from: options.from ?? ANVIL_DEV_ACCOUNT, data, gas: '0x2dc6c0' }]);
  let receipt = await client.request<Record<string, unknown> | null>('eth_getTransactionReceipt', [hash]);
  if (receipt === null) {
    await client.request('evm_mine');
    receipt = await client.request<Record<string, unknown> | null>('eth_getTransactionReceipt', [hash]);
  }
  if (receipt === null || receipt.status !== '0x1' || typeof receipt.contractAddress !== 'string') {
    throw new IdxError('ERC20_DEPLOY_FAILED', `deploying the test ERC20 failed (transaction ${hash}, receipt ${JSON.stringify(receipt)})`);
  }
  return { address: toLowerHex(receipt.contractAddress), blockNumber: hexToNumber(receipt.blockNumber), transactionHash: toLowerHex(hash) };
}
