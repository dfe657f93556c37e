import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SubstrateBlock } from '../../../../domain/chains/substrate/substrate-block.ts';
import type { SubstrateMappingHost } from '../../../../domain/chains/substrate/substrate-mapping-host.ts';
import type { SubstrateHandlerCall } from '../../../../domain/chains/substrate/match-substrate-handlers.ts';
import type { RunResult } from '../../run-in-runtime.ts';
import type { BlockRan, SandboxFamily, SandboxLibrary } from '../../sandbox-family.ts';
import { substratePayload } from './substrate-payload.ts';

/** What a Substrate sandbox adds: running a block's calls, and making a runtime ahead. */
export interface SubstrateSandboxMethods {
  /** As `runBlock`, for a Substrate block (a `family: 'substrate'` sandbox). */
  runSubstrateBlock(block: SubstrateBlock, calls: readonly SubstrateHandlerCall[]): Promise<BlockRan>;
  /**
   * Runs blocks one after another in one entry into the sandbox, as the EVM family's `runBlocks` (a block of another
   * spec version makes its runtime inside, as a lone block does).
   */
  runSubstrateBlocks(blocks: readonly SubstrateRunBlock[], budgetMs?: number): Promise<RunResult>;
  /**
   * Makes the runtime of a spec version inside (decoding its metadata takes a few hundred ms) while
   * the node still fetches, rather than in the first block that needs it. Blocks may run meanwhile.
   */
  prepareSubstrateRuntime(specVersion: number): Promise<void>;
}

export interface SubstrateRunBlock {
  content: SubstrateBlock;
  calls: readonly SubstrateHandlerCall[];
  enter?: () => void;
}

const here = dirname(fileURLToPath(import.meta.url));

/** `@polkadot/types` (lib/index.ts), bundled on its own and loaded only by sandboxes of Substrate projects. */
const library: SandboxLibrary = {
  name: 'substrate',
  /** its sources (with the registry making it shares with the node), its recipe and the bundler, and the installed `@polkadot/types` */
  async hash(ext) {
    const hash = createHash('sha256');
    const files = (await readdir(join(here, 'lib'))).filter((f) => f.endsWith(ext)).sort();
    for (const f of files) hash.update(f).update(await readFile(join(here, 'lib', f)));
    hash.update(await readFile(join(here, '..', '..', '..', 'chains', 'substrate', `create-runtime-registry${ext}`)));
    hash.update(await readFile(join(here, `library-bundle${ext}`)));
    hash.update(await readFile(join(here, '..', '..', `bundle-prelude${ext}`)));
    hash.update(await readFile(fileURLToPath(import.meta.resolve('@polkadot/types/package.json'))));
    hash.update(await readFile(fileURLToPath(import.meta.resolve('@polkadot/types-known/package.json'))));
    return hash.digest('hex').slice(0, 16);
  },
  recipe: async (ext) => (await import('./library-bundle.ts')).libraryInput(ext),
};

/**
 * Substrate chains in the sandbox: blocks handed over as their SCALE parts and decoded inside with
 * the runtime the host hands over once per spec version (`substrateRuntime`).
 */
export const substrateSandbox: SandboxFamily<SubstrateSandboxMethods> = {
  name: 'substrate',
  library,
  create(mappingHost, core) {
    // a chain hands the sandbox its own family's host (NodeChain.mappingHost)
    const host = mappingHost as SubstrateMappingHost;
    return {
      ops: {
        substrateRuntime: (args) => {
          if (host.substrateRuntime === undefined) throw new Error('this chain has no Substrate runtime');
          return host.substrateRuntime(args[0] as number);
        },
      },
      methods: {
        runSubstrateBlock: (block, calls) =>
          calls.length === 0 ? Promise.resolve({}) : core.run(block.height, calls, (fresh) => substratePayload(block, calls, fresh)),
        runSubstrateBlocks: (blocks, budgetMs) =>
          core.runMany(
            blocks.map(({ content, calls, enter }) => ({
              height: content.height,
              calls,
              makePayload: (fresh: boolean) => substratePayload(content, calls, fresh),
              ...(enter !== undefined && { enter }),
            })),
            budgetMs,
          ),
        prepareSubstrateRuntime: (specVersion) => core.prepare(specVersion, 'prepareSubstrateRuntime'),
      },
    };
  },
};
