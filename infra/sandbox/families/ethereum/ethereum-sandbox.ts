import type { EthereumMappingHost } from '../../../../domain/chains/ethereum/ethereum-mapping-host.ts';
import type { BlockContent, HandlerCall } from '../../../../domain/chains/ethereum/handler-call.ts';
import type { JsonAbi } from '../../../../domain/mapping/json-abi.ts';
import { createAbiDecoder, type AbiDecoder } from '../../abi-decoder.ts';
import type { BlockExtrasWire } from '../../isolate/families/ethereum/ethereum-wire.ts';
import type { WireRecord } from '../../isolate/wire.ts';
import type { RunResult } from '../../run-in-runtime.ts';
import type { BlockRan, SandboxFamily } from '../../sandbox-family.ts';
import { evmPayload, txLogArgsOf, type AbiArgs } from './evm-payload.ts';
import { toWireLog, toWireReceipt, toWireTransaction } from './format-chain-data.ts';

/** What an EVM sandbox adds: running a block's calls. */
export interface EthereumSandboxMethods {
  /**
   * Runs the calls of one block strictly in order, each awaited. Rejects with a `SandboxError`
   * (`HANDLER_FAILED`, `SANDBOX_TIMEOUT`, `SANDBOX_MEMORY_LIMIT`, `HANDLER_NOT_FOUND`, …); the block's
   * store writes may then have partly reached the host and must be dropped with the block. `ran`: the block
   * stopped after that many calls, the last of which created data sources (the host runs the rest with them).
   */
  runBlock(content: BlockContent, calls: readonly HandlerCall[]): Promise<BlockRan>;
  /**
   * Runs blocks one after another in one entry into the sandbox (each as `runBlock` would); `enter` is told when a
   * block's writes and host calls begin; past `budgetMs` the run ends after the block running. How many completed,
   * and the failure of the next (run-in-runtime.ts).
   */
  runBlocks(blocks: readonly EvmRunBlock[], budgetMs?: number): Promise<RunResult>;
}

export interface EvmRunBlock {
  content: BlockContent;
  calls: readonly HandlerCall[];
  enter?: () => void;
}

type Running = { content: BlockContent; calls: readonly HandlerCall[] };

/**
 * EVM chains in the sandbox: blocks handed over in SubQuery's field types with ABI-decoded args,
 * `api`'s reads (`eth_call`, other JSON-RPC), receipts, and the block's transactions and logs
 * loaded when a mapping reads what the block was fetched without.
 */
export const ethereumSandbox: SandboxFamily<EthereumSandboxMethods> = {
  name: 'ethereum',
  create(mappingHost, core) {
    // a chain hands the sandbox its own family's host (NodeChain.mappingHost)
    const host = mappingHost as EthereumMappingHost;
    const decoders = new WeakMap<JsonAbi, AbiDecoder>();
    const abi: AbiArgs = {
      decoder(json) {
        let d = decoders.get(json);
        if (d === undefined) decoders.set(json, (d = createAbiDecoder(json)));
        return d;
      },
      warn: (message) => host.logger('warn', message),
    };
    /** what the running block was handed over without, and the args of its transaction calls' logs */
    const blockExtras = async (transactions: boolean, logs: boolean): Promise<BlockExtrasWire> => {
      const r = core.running() as Running | undefined;
      if (r === undefined) throw new Error('no block is running: its transactions and logs cannot be loaded');
      const { block } = r.content;
      const got = await host.blockExtras(block.height, { transactions, logs });
      const out: BlockExtrasWire = {};
      if (got.transactions !== undefined) out.transactions = got.transactions.map((tx) => toWireTransaction(tx, block.timestamp));
      if (got.logs !== undefined) {
        out.logs = got.logs.map(toWireLog);
        out.txLogArgs = txLogArgsOf(r.calls, block.transactions ?? [], got.logs, abi.decoder);
      }
      return out;
    };
    return {
      ops: {
        ethCall: (args) => host.ethCall(args[0] as { to: string; data: string; from?: string }, args[1] as number | 'latest'),
        receipt: async (args) => toWireReceipt(await host.getReceipt(args[0] as string)) satisfies WireRecord,
        blockExtras: (args) => blockExtras(args[0] === true, args[1] === true),
      },
      methods: {
        runBlock: (content, calls) =>
          calls.length === 0
            ? Promise.resolve({})
            : core.run(content.block.height, calls, (fresh) => evmPayload(content, calls, fresh, abi), { content, calls } satisfies Running),
        runBlocks: (blocks, budgetMs) =>
          core.runMany(
            blocks.map(({ content, calls, enter }) => ({
              height: content.block.height,
              calls,
              makePayload: (fresh: boolean) => evmPayload(content, calls, fresh, abi),
              running: { content, calls } satisfies Running,
              ...(enter !== undefined && { enter }),
            })),
            budgetMs,
          ),
      },
    };
  },
};
