import { SourceMap } from 'node:module';
import type { ChainFamilyName } from '../../domain/chains/families.ts';
import type { EthLog, EthTransaction } from '../../domain/chains/ethereum/chain-data.ts';
import type { SubstrateBlock } from '../../domain/chains/substrate/substrate-block.ts';
import type { SubstrateHandlerCall } from '../../domain/chains/substrate/match-substrate-handlers.ts';
import { blockRunFailure, handlerFailure } from './block-failures.ts';
import type { BlockContent, HandlerCall, JsonAbi } from '../../domain/mapping/handler-call.ts';
import type { MappingHost } from '../../domain/mapping/mapping-host.ts';
import { createAbiDecoder, type AbiDecoder } from './abi-decoder.ts';
import { createHostBridge, WriteFailed, type HostBridge } from './create-host-bridge.ts';
import { createIsolatedRuntime } from './create-isolated-runtime.ts';
import { createNodeVmRuntime } from './create-node-vm-runtime.ts';
import { createPreludeCache, type PreludeCache } from './create-prelude-cache.ts';
import { toWireBlock, toWireLog, toWireTransaction } from './format-chain-data.ts';
import type { SandboxLimits } from './isolate/limits.ts';
import type { BlockExtrasWire, BlockOutcome, BlockPayload, ChainTypesSource, CustomSourcesInstall, WireCall, WireResult } from './isolate/wire.ts';
import type { ProcessorShape } from '../../domain/chains/substrate/custom-data-source.ts';
import { mapStack } from './map-stack.ts';
import type { MappingRuntime } from './mapping-runtime.ts';
import { SandboxError } from './sandbox-error.ts';
import { substratePayload } from './substrate-payload.ts';

export interface SandboxOptions {
  /** the project's built `dist/index.js`: one CommonJS bundle */
  code: string;
  /** its `dist/index.js.map` (JSON text or parsed), to point errors at the project's sources */
  sourceMap?: string | object;
  /** the bundle's path; stack frames name it */
  fileName: string;
  /** --unsafe: any `require`, `fetch`, `unsafeApi`; runs in node:vm instead of an isolate */
  unsafe?: boolean;
  /** --timeout: milliseconds for all handlers of one block (default 10000) */
  timeoutMs?: number;
  /** the isolate's heap limit (default 256; not enforced with --unsafe) */
  memoryLimitMb?: number;
  /** --query-limit: the largest `limit` a store read may ask for, and the default one (default 100) */
  queryLimit?: number;
  host: MappingHost;
  /**
   * Entities the sandbox remembers from the mapping's own reads and writes so a repeated
   * `store.get` needs no host round trip (default 10000; 0 = off). Correct while this sandbox is
   * the only writer of the project's entities; turn it off when another process writes them too
   * (e.g. --multi-chain). It is cleared when a block fails or a height is run again (rewinds).
   */
  readCacheSize?: number;
  /** bounds on what a mapping can make the host hold (log text, store writes, call arguments); defaults in isolate/limits.ts */
  limits?: Partial<SandboxLimits>;
  /** share one per process: the runtime bundle is built once per cache */
  prelude?: PreludeCache;
  /** the chain family (default ethereum): Substrate sandboxes decode blocks with `@polkadot/types` and get its `api` */
  family?: ChainFamilyName;
  /** Substrate: the custom data sources' processors (loaded with the project) and assets, and the manifest's sources to check */
  custom?: CustomSourcesInstall;
  /** Substrate: the project's chain types, as the node loaded them (infra/chains/substrate/load-chain-types.ts) */
  chainTypes?: ChainTypesSource;
}

export interface Sandbox {
  /** names of the functions the bundle exports (the handlers a manifest may name) */
  readonly handlers: readonly string[];
  /** the custom data source processors loaded (`custom`), by file */
  readonly processors: Readonly<Record<string, ProcessorShape>>;
  /** what the processors refused of the manifest's custom data sources, by field path */
  readonly customProblems: readonly { path: string; message: string }[];
  /**
   * Runs the calls of one block strictly in order, each awaited. Rejects with a `SandboxError`
   * (`HANDLER_FAILED`, `SANDBOX_TIMEOUT`, `SANDBOX_MEMORY_LIMIT`, `HANDLER_NOT_FOUND`, …); the block's
   * store writes may then have partly reached the host and must be dropped with the block.
   */
  runBlock(content: BlockContent, calls: readonly HandlerCall[]): Promise<void>;
  /** As `runBlock`, for a Substrate block (a `family: 'substrate'` sandbox). */
  runSubstrateBlock(block: SubstrateBlock, calls: readonly SubstrateHandlerCall[]): Promise<void>;
  /**
   * Makes the runtime of a spec version inside (decoding its metadata takes a few hundred ms) while
   * the node still fetches, rather than in the first block that needs it. Blocks may run meanwhile.
   */
  prepareSubstrateRuntime(specVersion: number): Promise<void>;
  dispose(): void;
}

const DEFAULTS = { timeoutMs: 10_000, memoryLimitMb: 256, queryLimit: 100, readCacheSize: 10_000 };

/** Loads a project's bundle into a fresh sandbox; load errors (syntax, a forbidden `require`) reject here. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const queryLimit = options.queryLimit ?? DEFAULTS.queryLimit;
  const memoryLimitMb = options.memoryLimitMb ?? DEFAULTS.memoryLimitMb;
  const prelude = options.prelude ?? createPreludeCache();
  const sourceMap = readSourceMap(options.sourceMap, options.fileName);
  const hostBridge = createHostBridge(options.host);
  // the block whose handlers run: `blockExtras` answers for it
  let running: { content: BlockContent; calls: readonly HandlerCall[] } | undefined;
  // A write refused while crossing with a later call surfaces in whichever handler made that call,
  // which may catch it: the block fails with it anyway, named for the handler that wrote.
  let writeFailure: WriteFailed | undefined;
  const bridge: HostBridge = {
    ...hostBridge,
    call: async (op, args, writes) => {
      if (op === 'blockExtras') return blockExtras(args[0] === true, args[1] === true);
      try {
        return await hostBridge.call(op, args, writes);
      } catch (err) {
        if (err instanceof WriteFailed) writeFailure ??= err;
        throw err;
      }
    },
  };
  const install = {
    queryLimit,
    readCacheSize: options.readCacheSize ?? DEFAULTS.readCacheSize,
    chainId: options.host.chainId,
    family: options.family ?? 'ethereum',
    unsafe: options.unsafe === true,
    logLevel: options.host.logLevel ?? 'trace',
    limits: { ...options.limits },
    ...(options.custom !== undefined && { custom: options.custom }),
    ...(options.chainTypes !== undefined && { chainTypes: options.chainTypes }),
  };
  const runtime: MappingRuntime = options.unsafe
    ? createNodeVmRuntime({ code: options.code, fileName: options.fileName, timeoutMs, install, prelude, bridge })
    : createIsolatedRuntime({ code: options.code, fileName: options.fileName, memoryLimitMb, loadTimeoutMs: timeoutMs, install, prelude, bridge });
  const decoders = new WeakMap<JsonAbi, AbiDecoder>();
  const decoder = (abi: JsonAbi): AbiDecoder => {
    let d = decoders.get(abi);
    if (d === undefined) decoders.set(abi, (d = createAbiDecoder(abi)));
    return d;
  };
  let busy = false;
  let disposed = false;
  // whether the last block completed: when not, its writes never reached the store for good
  let lastCompleted = true;

  const ready = async () => {
    const load = await runtime.ready();
    if (load.ok) return load;
    runtime.reset();
    const { stack, location } = mapStack(load.error.stack ?? '', options.fileName, sourceMap);
    const code = load.error.name === 'ModuleNotAllowedError' ? 'MODULE_NOT_ALLOWED' : 'SANDBOX_LOAD_FAILED';
    throw new SandboxError(code, `${options.fileName} failed to load: ${load.error.message}${location ? `\n    at ${location}` : ''}`, {
      location,
      mappingStack: stack,
    });
  };

  /** per transaction call with an ABI, its args of the transaction's logs, by position in `logs` */
  const txLogArgsOf = (calls: readonly HandlerCall[], txs: readonly EthTransaction[], logs: readonly EthLog[]): [number, [number, WireResult][]][] => {
    const out: [number, [number, WireResult][]][] = [];
    calls.forEach((c, i) => {
      if (c.kind !== 'transaction' || c.abi === undefined) return;
      const tx = txs[c.index]!;
      const d = decoder(c.abi);
      const args: [number, WireResult][] = [];
      logs.forEach((log, li) => {
        if (log.transactionHash !== tx.hash) return;
        const decoded = d.decodeLog(log.topics, log.data);
        if (decoded !== undefined) args.push([li, decoded]);
      });
      out.push([i, args]);
    });
    return out;
  };

  async function blockExtras(transactions: boolean, logs: boolean): Promise<BlockExtrasWire> {
    const r = running;
    if (r === undefined) throw new Error('no block is running: its transactions and logs cannot be loaded');
    const { block } = r.content;
    const got = await options.host.blockExtras(block.height, { transactions, logs });
    const out: BlockExtrasWire = {};
    if (got.transactions !== undefined) out.transactions = got.transactions.map((tx) => toWireTransaction(tx, block.timestamp));
    if (got.logs !== undefined) {
      out.logs = got.logs.map(toWireLog);
      out.txLogArgs = txLogArgsOf(r.calls, block.transactions ?? [], got.logs);
    }
    return out;
  }

  const payloadOf = (content: BlockContent, calls: readonly HandlerCall[]): BlockPayload => {
    const { block, logs } = content;
    const txs = block.transactions ?? [];
    // with only the matched logs at hand, tx.logs is loaded on first read, and decoded then
    const txLogArgs = new Map(content.logsComplete === true ? txLogArgsOf(calls, txs, logs) : []);
    const wireCalls = calls.map((c, i): WireCall => {
      if (c.kind === 'block') return [c.handler, 0, 0];
      const list = c.kind === 'log' ? logs : txs;
      if (!Number.isInteger(c.index) || c.index < 0 || c.index >= list.length) {
        throw new SandboxError(
          'INVALID_HANDLER_CALL',
          `call ${i} (${c.handler}) refers to ${c.kind} ${c.index} of block ${block.height}, which has ${list.length}`,
          { handler: c.handler, height: block.height },
        );
      }
      if (c.kind === 'log') {
        const log = logs[c.index]!;
        return [c.handler, 1, c.index, c.abi && decodeLog(decoder(c.abi), log.topics, log.data, c.handler)];
      }
      if (c.abi === undefined) return [c.handler, 2, c.index];
      return [c.handler, 2, c.index, decoder(c.abi).decodeInput(txs[c.index]!.input), txLogArgs.get(i)];
    });
    return {
      height: block.height,
      fresh: !lastCompleted,
      block: toWireBlock(block),
      transactions: block.transactions === undefined ? null : block.transactions.map((tx) => toWireTransaction(tx, block.timestamp)),
      logs: logs.map(toWireLog),
      logsComplete: content.logsComplete === true,
      calls: wireCalls,
    };
  };

  const decodeLog = (d: AbiDecoder, topics: readonly string[], data: string, handler: string): WireResult | undefined => {
    const args = d.decodeLog(topics, data);
    if (args === undefined)
      options.host.logger('warn', `${handler}: the log with topic ${topics[0] ?? '(none)'} does not match the data source's ABI; log.args is undefined`);
    return args;
  };

  const loaded = await ready();

  return {
    handlers: loaded.handlers,
    processors: loaded.processors ?? {},
    customProblems: loaded.customProblems ?? [],

    runBlock: (content, calls) =>
      calls.length === 0 ? Promise.resolve() : run(content.block.height, calls, () => payloadOf(content, calls), { content, calls }),

    runSubstrateBlock: (block, calls) =>
      calls.length === 0 ? Promise.resolve() : run(block.height, calls, () => substratePayload(block, calls, !lastCompleted)),

    async prepareSubstrateRuntime(specVersion) {
      if (disposed) throw new SandboxError('SANDBOX_DISPOSED', 'prepareSubstrateRuntime was called on a disposed sandbox');
      await ready();
      await runtime.prepare(specVersion);
    },

    dispose() {
      if (disposed) return;
      disposed = true;
      runtime.dispose();
    },
  };

  /** Runs one block's payload in the runtime, bounded by --timeout, its failures named for the handler. */
  async function run(
    height: number,
    calls: readonly { handler: string }[],
    makePayload: () => BlockPayload,
    evm?: { content: BlockContent; calls: readonly HandlerCall[] },
  ): Promise<void> {
    if (disposed) throw new SandboxError('SANDBOX_DISPOSED', 'runBlock was called on a disposed sandbox');
    if (busy) throw new SandboxError('SANDBOX_BUSY', 'runBlock was called while another block was still running; blocks must run one after another');
    busy = true;
    let timer: NodeJS.Timeout | undefined;
    let completed = false;
    try {
      const payload = makePayload();
      running = evm;
      await ready();
      const run = (async (): Promise<BlockOutcome> => {
        writeFailure = undefined;
        const outcome = await runtime.runBlock(payload);
        if (writeFailure !== undefined) throw writeFailure;
        if (outcome.ok) await bridge.applyWrites(outcome.writes);
        return outcome;
      })();
      const expired = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      let outcome: BlockOutcome | 'timeout';
      try {
        outcome = await Promise.race([run, expired]);
      } catch (err) {
        if ((err as { code?: string })?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') outcome = 'timeout';
        else throw err;
      }
      if (outcome === 'timeout') {
        run.catch(() => {});
        const handler = calls[runtime.progress()]?.handler ?? '(none)';
        runtime.reset();
        throw new SandboxError(
          'SANDBOX_TIMEOUT',
          `Handler ${handler} did not finish within the --timeout of ${timeoutMs} ms at block ${height}: it is stuck in a loop or awaiting something that never settles (raise --timeout if it is only slow)`,
          { handler, height },
        );
      }
      if (!outcome.ok) throw handlerFailure(height, calls[outcome.call]?.handler ?? '(unknown)', outcome.error, options.fileName, sourceMap);
      completed = true;
    } catch (err) {
      const handlerOfCall = (call: number) => calls[call]?.handler ?? '(unknown)';
      throw blockRunFailure(err, { height, handlerOfCall, running: () => handlerOfCall(runtime.progress()), memoryLimitMb });
    } finally {
      clearTimeout(timer);
      running = undefined;
      busy = false;
      lastCompleted = completed;
    }
  }
}

function readSourceMap(map: string | object | undefined, fileName: string): SourceMap | undefined {
  if (map === undefined) return undefined;
  try {
    return new SourceMap((typeof map === 'string' ? JSON.parse(map) : map) as ConstructorParameters<typeof SourceMap>[0]);
  } catch (err) {
    throw new SandboxError('SANDBOX_LOAD_FAILED', `the source map of ${fileName} is not valid JSON source map: ${(err as Error).message}`, { cause: err });
  }
}
