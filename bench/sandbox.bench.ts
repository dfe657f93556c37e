import type { EthBlock, EthLog } from '../domain/chains/ethereum/chain-data.ts';
import type { HandlerCall } from '../domain/chains/ethereum/handler-call.ts';
import type { JsonAbi } from '../domain/mapping/json-abi.ts';
import type { EthereumMappingHost } from '../domain/chains/ethereum/ethereum-mapping-host.ts';
import type { MappingEntityData } from '../domain/mapping/mapping-host.ts';
import { createPreludeCache } from '../infra/sandbox/create-prelude-cache.ts';
import { createSandbox } from '../infra/sandbox/create-sandbox.ts';
import type { Benchmark } from './run.ts';

/**
 * Handler invocations per second through the sandbox, blocks of LOGS_PER_BLOCK ERC20 Transfer
 * logs decoded by the ABI, against an in-memory host store (so the figure is the sandbox's own
 * cost): a trivial handler doing one `store.set`, and the ERC20 example's handler (one Transfer
 * set plus a get and a set of two Account balances), in an isolate and with --unsafe (node:vm).
 */
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 300);
const LOGS_PER_BLOCK = 20;

const TRIVIAL = `module.exports.handle = async (log) => {
  const id = log.transactionHash + '-' + log.logIndex;
  await store.set('Transfer', id, { id, from: log.args.from, to: log.args.to, value: log.args.value.toBigInt(), blockNumber: log.blockNumber });
};`;
const ERC20 = `module.exports.handle = async (log) => {
  const id = log.transactionHash + '-' + log.logIndex;
  const value = log.args.value.toBigInt();
  await store.set('Transfer', id, { id, from: log.args.from, to: log.args.to, value, blockNumber: log.blockNumber });
  for (const [who, sign] of [[log.args.from, -1n], [log.args.to, 1n]]) {
    const account = (await store.get('Account', who)) ?? { id: who, balance: 0n };
    account.balance += sign * value;
    await store.set('Account', who, account);
  }
};`;

const ABI: JsonAbi = [
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { indexed: true, name: 'from', type: 'address' },
      { indexed: true, name: 'to', type: 'address' },
      { indexed: false, name: 'value', type: 'uint256' },
    ],
  },
];
const TOPIC0 = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const word = (n: bigint | number) => `0x${n.toString(16).padStart(64, '0')}`;

function blockOf(height: number): { block: EthBlock; logs: EthLog[] } {
  const hash = word(height);
  const logs = Array.from({ length: LOGS_PER_BLOCK }, (_, i): EthLog => ({
    address: '0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb',
    topics: [TOPIC0, word(0x1000 + (i % 20)), word(0x2000 + ((height * LOGS_PER_BLOCK + i) % 1000))],
    data: word(BigInt(i + 1) * 10n ** 18n),
    blockNumber: height,
    blockHash: hash,
    transactionHash: word(height * 1000 + i),
    transactionIndex: i,
    logIndex: i,
    removed: false,
  }));
  const block: EthBlock = {
    height,
    hash,
    parentHash: word(height - 1),
    timestamp: 1_700_000_000 + height,
    miner: `0x${'00'.repeat(20)}`,
    gasLimit: 30_000_000n,
    gasUsed: 1n,
    difficulty: 0n,
    extraData: '0x',
    logsBloom: '0x',
    nonce: '0x',
    receiptsRoot: hash,
    sha3Uncles: hash,
    size: 1000,
    stateRoot: hash,
    transactionsRoot: hash,
    uncles: [],
    transactionHashes: [],
  };
  return { block, logs };
}

function memoryHost(): EthereumMappingHost {
  const rows = new Map<string, MappingEntityData>();
  const none = async () => {
    throw new Error('not used by this benchmark');
  };
  return {
    chainId: '1',
    store: {
      get: async (e, id) => rows.get(`${e}:${id}`),
      getByField: none,
      getByFields: none,
      getOneByField: none,
      set: async (e, id, d) => void rows.set(`${e}:${id}`, d),
      bulkCreate: none,
      bulkUpdate: none,
      remove: none,
      bulkRemove: none,
    },
    logger: () => {},
    ethCall: none,
    request: none,
    getReceipt: none,
    createDynamicDatasource: none,
    blockExtras: none,
  };
}

async function measure(name: string, code: string, unsafe: boolean, prelude: ReturnType<typeof createPreludeCache>): Promise<void> {
  const sandbox = await createSandbox({ code, fileName: '/bench/dist/index.js', host: memoryHost(), prelude, unsafe });
  const calls: HandlerCall[] = Array.from({ length: LOGS_PER_BLOCK }, (_, index) => ({ handler: 'handle', kind: 'log', index, abi: ABI }));
  try {
    // warm up: the JIT of the isolate, and the read cache with every account
    for (let h = 1; h <= 200; h++) await sandbox.runBlock(blockOf(h), calls);
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (let h = 1000; h < 1000 + BLOCKS; h++) await sandbox.runBlock(blockOf(h), calls);
    const seconds = (performance.now() - started) / 1000;
    // CPU time of all the process's threads (the isolate runs on its own): a figure that a busy machine distorts less
    const used = process.cpuUsage(cpu);
    const cpuPerCall = (used.user + used.system) / (BLOCKS * LOGS_PER_BLOCK);
    console.log(
      `${name}${unsafe ? ' --unsafe' : ''}: ${Math.round((BLOCKS * LOGS_PER_BLOCK) / seconds)} invocations/s, ${Math.round(BLOCKS / seconds)} blocks/s, ${cpuPerCall.toFixed(0)} µs CPU per invocation`,
    );
  } finally {
    sandbox.dispose();
  }
}

const bench: Benchmark = {
  name: 'sandbox',
  async run() {
    const prelude = createPreludeCache();
    for (const unsafe of [false, true]) {
      await measure('trivial log handler (one store.set)', TRIVIAL, unsafe, prelude);
      await measure('ERC20 handler (set + 2 × get/set)', ERC20, unsafe, prelude);
    }
  },
};
export default bench;
