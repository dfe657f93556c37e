import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The dev accounts given balances at genesis (//Alice, //Bob, //Charlie), SS58 with the generic prefix. */
export const DEV_ACCOUNTS = {
  alice: '5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY',
  bob: '5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty',
  charlie: '5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y',
} as const;

/** The genesis hash chopsticks reports for a chain started from a raw spec. */
export const CHOPSTICKS_GENESIS_HASH = `0x${'45'.repeat(32)}`;

export interface SubstrateDevChain {
  /** ws://127.0.0.1:<port> (the same port also answers JSON-RPC over HTTP) */
  wsUrl: string;
  httpUrl: string;
  /** builds `count` blocks with what was submitted since the last one */
  newBlocks(count?: number): Promise<void>;
  /** the best block's height */
  height(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A real Substrate runtime (Rococo Asset Hub, a FRAME parachain runtime) run by chopsticks in this
 * process: blocks only when asked (`newBlocks`), dev accounts funded. For tests, benchmarks and the demo.
 */
export interface SubstrateChainOptions {
  port?: number;
  /**
   * Makes the chain reproducible: block 1 is rebuilt on a genesis whose clock reads this time (ms),
   * so every block's timestamp, slot and hash is the same on every run (chopsticks otherwise takes
   * the wall clock for block 1, and every later block builds on it). Signed extrinsics must be
   * deterministic too: ed25519 signers with explicit nonces and immortal eras.
   */
  genesisTimestamp?: number;
  /** more accounts (SS58 addresses) funded at genesis, beside the dev accounts */
  fund?: readonly string[];
}

export async function startSubstrateChain(options: SubstrateChainOptions = {}): Promise<SubstrateDevChain> {
  // a line per block (pretty-printed in a worker thread) is noise and CPU in tests and benchmarks; chopsticks
  // reads its level from the environment once, when first loaded (its CommonJS and ESM builds each keep their own)
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = level ?? 'warn';
  const [{ setupWithServer, BuildBlockMode }, core, { chainSpec }] = await Promise.all([
    import('@acala-network/chopsticks'),
    import('@acala-network/chopsticks-core'),
    import('@substrate/connect-known-chains/rococo_v2_2_asset_hub'),
  ]).finally(() => {
    if (level === undefined) delete process.env.LOG_LEVEL;
  });
  const dir = await mkdtemp(join(tmpdir(), 'idx-substrate-'));
  const spec = join(dir, 'spec.json');
  await writeFile(spec, chainSpec);
  const funded = { providers: 1, data: { free: 10n ** 18n } };
  const accounts = [...Object.values(DEV_ACCOUNTS), ...(options.fund ?? [])];
  const context = await setupWithServer({
    genesis: spec,
    host: '127.0.0.1',
    port: options.port ?? 0,
    'build-block-mode': BuildBlockMode.Manual,
    'import-storage': { System: { Account: accounts.map((a) => [[a], funded]) } },
  } as never);
  if (options.genesisTimestamp !== undefined) {
    const { chain } = context;
    await chain.setHead((await chain.getBlockAt(0))!);
    await core.timeTravel(chain, options.genesisTimestamp);
    await core.setStorage(chain, { System: { Account: accounts.map((a) => [[a], funded]) } });
    await chain.newBlock();
  }
  const port = Number(String(context.addr).split(':').pop());
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    async newBlocks(count = 1) {
      for (let i = 0; i < count; i++) await context.chain.newBlock();
    },
    height: async () => context.chain.head.number,
    async close() {
      await context.close();
      // the runtime's executor thread would keep the process alive
      await core.destroyWorker();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
