import type { RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { testErc20Abi, testErc20Bytecode } from './contracts/test-erc20.artifact.ts';
import { deployContract, type DeployedContract } from './deploy-contract.ts';

export type DeployedErc20 = DeployedContract;

/** Deploys the test ERC20 (see deployContract). */
export function deployErc20(client: RpcClient, options: { name?: string; symbol?: string; from?: string } = {}): Promise<DeployedErc20> {
  return deployContract(
    client,
    { name: 'the test ERC20', abi: testErc20Abi, bytecode: testErc20Bytecode, args: [options.name ?? 'Test Token', options.symbol ?? 'TEST'] },
    options,
  );
}
