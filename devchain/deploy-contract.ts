import { encodeDeployData } from 'viem/utils';
import type { Abi } from 'viem';
import { IdxError } from '../domain/errors.ts';
import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { hexToNumber, toLowerHex } from '../infra/rpc/hex-quantity.ts';
import { ANVIL_DEV_ACCOUNT } from './start-anvil.ts';

export interface DeployedContract {
  address: string;
  /** the block of the deployment: a data source's `startBlock` */
  blockNumber: number;
  transactionHash: string;
}

/**
 * Deploys a compiled contract to an anvil chain from an unlocked account (anvil's first dev account
 * by default). Works with automine on or off: without a receipt it mines a block itself.
 */
export async function deployContract(
  client: RpcClient,
  contract: { name: string; abi: Abi; bytecode: `0x${string}`; args?: readonly unknown[] },
  options: { from?: string } = {},
): Promise<DeployedContract> {
  const data = encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args: contract.args ?? [] } as Parameters<typeof encodeDeployData>[0]);
  const hash = await client.request<string>('eth_sendTransaction', [{ from: options.from ?? ANVIL_DEV_ACCOUNT, data, gas: '0x2dc6c0' }]);
  let receipt = await client.request<Record<string, unknown> | null>('eth_getTransactionReceipt', [hash]);
  if (receipt === null) {
    await client.request('evm_mine');
    receipt = await client.request<Record<string, unknown> | null>('eth_getTransactionReceipt', [hash]);
  }
  if (receipt === null || receipt.status !== '0x1' || typeof receipt.contractAddress !== 'string') {
    throw new IdxError('CONTRACT_DEPLOY_FAILED', `deploying ${contract.name} failed (transaction ${hash}, receipt ${JSON.stringify(receipt)})`);
  }
  return { address: toLowerHex(receipt.contractAddress), blockNumber: hexToNumber(receipt.blockNumber), transactionHash: toLowerHex(hash) };
}

/** A fresh contract's address. */
export async function deployedAt(client: RpcClient, name: string, abi: Abi, bytecode: `0x${string}`, args: unknown[] = []): Promise<string> {
  return (await deployContract(client, { name, abi, bytecode, args })).address;
}

/** The deployed code of a fresh contract, put at `address` (storage empty): where a project's manifest or source names it. */
export async function placeContract(client: RpcClient, address: string, name: string, abi: Abi, bytecode: `0x${string}`, args: unknown[] = []): Promise<void> {
  const code = await client.request<string>('eth_getCode', [await deployedAt(client, name, abi, bytecode, args), 'latest']);
  await client.request('anvil_setCode', [address, code]);
}
