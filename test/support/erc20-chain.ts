import { makeErc20Workload, type Erc20Workload } from '../../devchain/make-erc20-workload.ts';
import type { Anvil } from '../../devchain/start-anvil.ts';
import { createRpcClient, type RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from './anvil.ts';
import { buildErc20Project } from './erc20-starter.ts';
import type { Teardown } from './teardown.ts';

export interface Erc20Chain {
  anvil: Anvil;
  client: RpcClient;
  workload: Erc20Workload;
  /** the starter project, initialised, generated and built; copy it before use */
  built: string;
}

/**
 * anvil with an ERC20 workload of `blocks` × 20 transfers + 2 approvals, followed by the 64 blocks
 * anvil needs before it calls the workload final, and the starter project built to index it.
 */
export async function setupErc20Chain(t: Teardown, blocks = 40): Promise<Erc20Chain> {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const workload = await makeErc20Workload(client, { blocks, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 100 });
  await client.request('anvil_mine', ['0x40']);
  return { anvil, client, workload, built: await buildErc20Project(t) };
}
