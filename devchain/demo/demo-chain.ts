import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeErc20Workload } from '../make-erc20-workload.ts';
import { startAnvil, type AnvilOptions } from '../start-anvil.ts';
import { startSubstrateChain, type SubstrateDevChain } from '../start-substrate-chain.ts';
import { createSubstrateWorkload } from '../substrate-workload.ts';
import { createRpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../../infra/rpc/hex-quantity.ts';

/** A local chain for the demo: where it is, which starter indexes it, and how it keeps moving. */
export interface DemoChain {
  url: string;
  example: 'erc20' | 'substrate';
  /** a few transfers in a new block */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export type Say = (line: string) => void;

export interface EvmDemoChainOptions extends Pick<AnvilOptions, 'host' | 'port'> {
  /**
   * A folder where the chain is kept (anvil's state, written every few seconds and when it stops)
   * and taken up again at the next start, so that a restarted chain still has the blocks an indexer
   * has seen. Absent: a new chain every time.
   */
  dataDir?: string;
  /** blocks of transfers made at the start (default 100, 20 transfers each) */
  blocks?: number;
  /**
   * Every block final as soon as it is made (anvil's `finalized` is its head): a node indexing final
   * blocks only follows the head. Default: final two blocks behind the head, as a real chain lags.
   */
  finalAtHead?: boolean;
}

/** anvil with an ERC20 and a few thousand transfers. */
export async function startEvmDemoChain(say: Say, options: EvmDemoChainOptions = {}): Promise<DemoChain> {
  const { dataDir, blocks = 100, finalAtHead = false, ...where } = options;
  const state = dataDir === undefined ? undefined : { chain: join(dataDir, 'anvil-state.json'), token: join(dataDir, 'demo-token.json') };
  const resumed = state !== undefined && existsSync(state.chain) && existsSync(state.token);
  // a chain kept without its token (stopped during the first workload) is started over
  if (state && !resumed) await rm(state.chain, { force: true });
  // anvil calls a block final two blocks behind the head with one slot per epoch (64 by default), and its head with none
  const args = ['--slots-in-an-epoch', finalAtHead ? '0' : '1', ...(state ? ['--state', state.chain, '--state-interval', '2'] : [])];
  const anvil = await startAnvil({ ...where, args });
  say(`anvil (chain 31337) at ${anvil.url}, its blocks final ${finalAtHead ? 'at once' : 'two blocks behind the head'}`);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  let workload: { token: string };
  if (resumed) {
    workload = JSON.parse(await readFile(state.token, 'utf8')) as { token: string };
    say(`ERC20 ${workload.token}: the chain kept in ${dataDir}, at block ${hexToNumber((await client.request('eth_blockNumber', [])) as string)}`);
  } else {
    const w = await makeErc20Workload(client, { blocks, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 200 });
    say(`ERC20 ${w.token}: ${w.transfers} transfers in blocks ${w.fromBlock}-${w.toBlock}`);
    if (state) await writeFile(state.token, JSON.stringify({ token: w.token }));
    workload = w;
  }
  return {
    url: anvil.url,
    example: 'erc20',
    tick: async () => {
      await makeErc20Workload(client, {
        blocks: 1,
        transfersPerBlock: 5,
        approvalsPerBlock: 0,
        senders: 10,
        recipients: 200,
        token: workload.token,
        seed: Date.now(),
      });
    },
    stop: () => anvil.stop(),
  };
}

export interface SubstrateDemoChainOptions {
  /** the chain (default: chopsticks in this process, at ws://127.0.0.1:8000 when free) */
  start?: () => Promise<SubstrateDevChain>;
  /** blocks of transfers and batches made at the start (default 12) */
  blocks?: number;
  /** how the workload talks to the chain (default HTTP; see createSubstrateWorkload) */
  transport?: 'http' | 'ws';
}

/** A real Substrate runtime under chopsticks, with transfers and batches in its first blocks. Every block is final at once. */
export async function startSubstrateDemoChain(say: Say, options: SubstrateDemoChainOptions = {}): Promise<DemoChain> {
  const chain = await (options.start ?? (() => startSubstrateChain({ port: 8000 }).catch(() => startSubstrateChain())))();
  const w = await createSubstrateWorkload(chain, { transport: options.transport ?? 'http' }).catch(async (err: unknown) => {
    await chain.close();
    throw err;
  });
  say(`a Substrate chain (Rococo Asset Hub's runtime under chopsticks) at ${chain.wsUrl}, its blocks final at once`);
  const { alice, bob, charlie } = w.accounts;
  let n = 1n;
  const tick = async () => {
    await w.transfer('alice', bob, 10n ** 10n * n);
    await w.batchAll('alice', [
      [charlie, 10n ** 9n * n],
      [bob, 10n ** 8n * n],
    ]);
    n++;
    await w.block();
  };
  for (let i = 0; i < (options.blocks ?? 12); i++) await tick();
  say(`blocks 1-${await chain.height()} hold transfers and utility.batchAll calls from //Alice`);
  return { url: chain.wsUrl, example: 'substrate', tick, stop: async () => (await w.close(), await chain.close()) };
}
