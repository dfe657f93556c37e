import { encodeFunctionData, decodeFunctionResult } from 'viem/utils';
import { testErc20Abi } from '../../devchain/contracts/test-erc20.artifact.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';

/** `account`'s balance of the test ERC20 at `token` as of block `height`, read from the contract (eth_call). */
export async function balanceOf(client: RpcClient, token: string, account: string, height: number): Promise<bigint> {
  const data = encodeFunctionData({ abi: testErc20Abi, functionName: 'balanceOf', args: [account as `0x${string}`] });
  const result = await client.request<`0x${string}`>('eth_call', [{ to: token, data }, `0x${height.toString(16)}`]);
  return decodeFunctionResult({ abi: testErc20Abi, functionName: 'balanceOf', data: result }) as bigint;
}
