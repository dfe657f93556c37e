import t from 'tap';
import { keccak256, toBytes } from 'viem/utils';
import { compileDataSource, matchHandlers, planFetch, type MatchInput } from './compile-data-sources.ts';
import type { DataSource, Handler } from '../../project/project-model.ts';

const keccak = (text: string) => keccak256(toBytes(text));
const TRANSFER = keccak('Transfer(address,address,uint256)');
const APPROVAL = keccak('Approval(address,address,uint256)');
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const OTHER = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const pad = (addr: string) => `0x${addr.slice(2).padStart(64, '0')}`;

const ds = (handlers: Handler[], over: Partial<DataSource> = {}): DataSource => ({
  kind: 'ethereum/Runtime',
  startBlock: 1,
  options: { abi: 'erc20', address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
  assets: { erc20: { file: 'abis/erc20.json' } },
  mapping: { file: 'dist/index.js', handlers },
  ...over,
});

t.test('the fetch plan narrows logs to addresses and topic0s, and asks for blocks only where needed', async (t) => {
  const sources = [
    ds([{ kind: 'ethereum/LogHandler', handler: 'handleTransfer', filter: { topics: ['Transfer(address indexed from, address indexed to, uint256 value)'] } }]),
    ds([{ kind: 'ethereum/LogHandler', handler: 'handleApproval', filter: { topics: [APPROVAL] } }], {
      startBlock: 50,
      options: { abi: 'erc20', address: OTHER },
    }),
    ds([{ kind: 'ethereum/BlockHandler', handler: 'handleBlock', filter: { modulo: 10 } }], { startBlock: 5, endBlock: 35 }),
  ].map((d, i) => compileDataSource(d, i, keccak));

  const { dictionary, ...plan } = planFetch(sources, 1, 40);
  t.equal(dictionary?.length, 1, 'with a dictionary question for the Transfer logs');
  t.same(plan, {
    transactions: false,
    blockHeights: [10, 20, 30],
    logs: { fromBlock: 1, toBlock: 40, address: [TOKEN], topics: [[TRANSFER]] },
  });
  t.same(planFetch(sources, 41, 60).logs, { fromBlock: 41, toBlock: 60, address: [TOKEN, OTHER].sort(), topics: [[APPROVAL, TRANSFER].sort()] });
  t.same(planFetch(sources, 41, 60).blockHeights, [], 'the block handler ended at 35');

  const wide = [ds([{ kind: 'ethereum/LogHandler', handler: 'h', filter: { topics: [null, pad(TOKEN)] } }], { options: {} })].map((d, i) =>
    compileDataSource(d, i, keccak),
  );
  t.same(planFetch(wide, 1, 2).logs, { fromBlock: 1, toBlock: 2 }, 'no address and no topic0: any log');

  const txs = [ds([{ kind: 'ethereum/TransactionHandler', handler: 'h', filter: { function: 'approve(address,uint256)' } }])].map((d, i) =>
    compileDataSource(d, i, keccak),
  );
  t.same(planFetch(txs, 1, 2), {
    transactions: true,
    blockHeights: [],
    dictionary: [
      {
        entity: 'evmTransactions',
        conditions: [
          { field: 'to', matcher: 'equalTo', value: TOKEN },
          { field: 'func', matcher: 'equalTo', value: keccak('approve(address,uint256)').slice(0, 10) },
        ],
      },
    ],
  });

  const cron = [ds([{ kind: 'ethereum/BlockHandler', handler: 'h', filter: { timestamp: '*/5 * * * *' } }])].map((d, i) => compileDataSource(d, i, keccak));
  t.same(planFetch(cron, 3, 6).blockHeights, [2, 3, 4, 5, 6], 'a cron filter needs every block and the one before');
});

t.test('handlers run in SubQuery order: blocks, then each transaction followed by its logs', async (t) => {
  const sources = [
    ds([
      { kind: 'ethereum/LogHandler', handler: 'onTransfer', filter: { topics: [TRANSFER] } },
      { kind: 'ethereum/TransactionHandler', handler: 'onApprove', filter: { function: 'approve(address spender, uint256 amount)' } },
      { kind: 'ethereum/BlockHandler', handler: 'onBlock', filter: { modulo: 2 } },
    ]),
    ds([{ kind: 'ethereum/LogHandler', handler: 'onAnyToMe', filter: { topics: [null, null, '!null'] } }], { options: {} }),
  ].map((d, i) => compileDataSource(d, i, keccak));

  const block: MatchInput = {
    height: 4,
    timestamp: 1_700_000_000,
    transactions: [
      { transactionIndex: 0, from: '0xaa', to: TOKEN, input: '0xa9059cbb00' },
      { transactionIndex: 1, from: '0xbb', to: TOKEN.toUpperCase().replace('0X', '0x'), input: '0x095ea7b3ff' },
      { transactionIndex: 2, from: '0xcc', to: OTHER, input: '0x095ea7b3ff' },
    ],
    logs: [
      { address: TOKEN, topics: [TRANSFER, pad('0xaa'), pad('0xdd')], transactionIndex: 0, logIndex: 0 },
      { address: TOKEN, topics: [APPROVAL, pad('0xbb')], transactionIndex: 1, logIndex: 1 },
      { address: OTHER, topics: [TRANSFER, pad('0xcc'), pad('0xee')], transactionIndex: 2, logIndex: 2 },
    ],
  };
  t.same(
    matchHandlers(sources, block).map(
      (c) => `${c.handler}@${c.kind === 'log' ? `log${c.logIndex}` : c.kind === 'transaction' ? `tx${c.transactionIndex}` : 'block'}`,
    ),
    ['onBlock@block', 'onTransfer@log0', 'onAnyToMe@log0', 'onApprove@tx1', 'onAnyToMe@log2'],
  );

  t.same(matchHandlers(sources, { ...block, height: 5, logs: [], transactions: [] }), [], 'modulo 2 skips odd blocks');
  t.same(matchHandlers(sources, { ...block, height: 0 }), [], 'before startBlock nothing runs');
});

t.test('transaction filters: from, to, contract creation, no input', async (t) => {
  const handlers: Handler[] = [
    { kind: 'ethereum/TransactionHandler', handler: 'fromA', filter: { from: '0xAA' } },
    { kind: 'ethereum/TransactionHandler', handler: 'creation', filter: { to: null } },
    { kind: 'ethereum/TransactionHandler', handler: 'plain', filter: { function: null } },
  ];
  const sources = [compileDataSource(ds(handlers, { options: {} }), 0, keccak)];
  const names = (tx: { from: string; to: string | null; input: string }) =>
    matchHandlers(sources, { height: 1, timestamp: 0, transactions: [{ transactionIndex: 0, ...tx }], logs: [] }).map((c) => c.handler);
  t.same(names({ from: '0xaa', to: TOKEN, input: '0x' }), ['fromA', 'plain']);
  t.same(names({ from: '0xbb', to: null, input: '0x6080' }), ['creation']);
  t.same(names({ from: '0xbb', to: TOKEN, input: '0x12345678' }), []);
});

t.test('cron block handlers ask whether they are due', async (t) => {
  const sources = [compileDataSource(ds([{ kind: 'ethereum/BlockHandler', handler: 'daily', filter: { timestamp: '0 0 * * *' } }]), 0, keccak)];
  const input: MatchInput = { height: 9, timestamp: 0, logs: [] };
  t.same(
    matchHandlers(sources, input, () => false),
    [],
  );
  t.same(
    matchHandlers(sources, input, (d, h) => d === 0 && h === 0),
    [{ kind: 'block', handler: 'daily', dataSource: 0, order: [0, 0, 0, 0, 0] }],
  );
});
