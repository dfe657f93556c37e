import t from 'tap';
import { keccak256, toBytes } from 'viem/utils';
import { compileDataSource, planFetch } from './compile-data-sources.ts';
import { dictionaryEntries, dictionaryHeights, dictionaryRequest, narrowPlan } from './dictionary-query.ts';
import type { DataSource, Handler } from '../../project/project-model.ts';

const keccak = (text: string) => keccak256(toBytes(text));
const TRANSFER = keccak('Transfer(address,address,uint256)');
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const SENDER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const compile = (handlers: Handler[], over: Partial<DataSource> = {}) =>
  compileDataSource(
    { startBlock: 1, options: { abi: 'erc20', address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }, mapping: { file: 'dist/index.js', handlers }, ...over },
    0,
    keccak,
  );

t.test('log and transaction filters become dictionary conditions, never finer than the handlers', async (t) => {
  const logs = compile([
    { kind: 'ethereum/LogHandler', handler: 'h', filter: { topics: ['Transfer(address indexed from, address indexed to, uint256 value)', null, '!null'] } },
  ]);
  t.same(dictionaryEntries([logs], { from: 1, to: 10 }), [
    {
      entity: 'evmLogs',
      conditions: [
        { field: 'address', matcher: 'equalTo', value: TOKEN },
        { field: 'topics0', matcher: 'equalTo', value: TRANSFER },
        { field: 'topics2', matcher: 'isNull', value: false },
      ],
    },
  ]);
  const txs = compile(
    [
      {
        kind: 'ethereum/TransactionHandler',
        handler: 'a',
        filter: { from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', function: 'transfer(address,uint256)' },
      },
      { kind: 'ethereum/TransactionHandler', handler: 'b', filter: { to: null } },
    ],
    { options: {} },
  );
  t.same(dictionaryEntries([txs], { from: 1, to: 10 }), [
    {
      entity: 'evmTransactions',
      conditions: [
        { field: 'from', matcher: 'equalTo', value: SENDER },
        { field: 'func', matcher: 'equalTo', value: keccak('transfer(address,uint256)').slice(0, 10) },
      ],
    },
    { entity: 'evmTransactions', conditions: [{ field: 'to', matcher: 'isNull', value: true }] },
  ]);
  const everyLog = compile([{ kind: 'ethereum/LogHandler', handler: 'h' }], { options: {} });
  t.same(dictionaryEntries([everyLog, everyLog], { from: 1, to: 10 }), [{ entity: 'evmLogs', conditions: [] }], 'no filter: every log, asked once');
});

t.test('a handler that needs every block rules the dictionary out; modulo block handlers do not', async (t) => {
  const log: Handler = { kind: 'ethereum/LogHandler', handler: 'h', filter: { topics: [TRANSFER] } };
  t.equal(dictionaryEntries([compile([log, { kind: 'ethereum/BlockHandler', handler: 'b' }])], { from: 1, to: 10 }), undefined);
  t.equal(
    dictionaryEntries([compile([log, { kind: 'ethereum/BlockHandler', handler: 'b', filter: { timestamp: '*/5 * * * *' } }])], { from: 1, to: 10 }),
    undefined,
  );
  t.equal(dictionaryEntries([compile([log, { kind: 'ethereum/BlockHandler', handler: 'b', filter: { modulo: 10 } }])], { from: 1, to: 10 })?.length, 1);
  t.same(
    dictionaryEntries([compile([{ kind: 'ethereum/BlockHandler', handler: 'b' }], { startBlock: 20 })], { from: 1, to: 10 }),
    [],
    'inactive data sources do not count',
  );
  t.notOk(
    'dictionary' in planFetch([compile([log, { kind: 'ethereum/BlockHandler', handler: 'b' }])], 1, 10),
    'the fetch plan carries no dictionary question then',
  );
  t.ok(planFetch([compile([log])], 1, 10).dictionary);
});

t.test('the request has the shape SubQuery dictionaries answer, values as variables', async (t) => {
  const entries = dictionaryEntries([compile([{ kind: 'ethereum/LogHandler', handler: 'h', filter: { topics: [TRANSFER] } }])], { from: 100, to: 199 })!;
  const { query, variables } = dictionaryRequest(entries, { from: 100, to: 199 }, { distinct: true, limit: 100 });
  t.equal(
    query,
    'query ($from: BigFloat!, $to: BigFloat!, $v2: String!, $v3: String!) { _metadata { lastProcessedHeight genesisHash chain } ' +
      'evmLogs(filter: { blockHeight: { greaterThanOrEqualTo: $from, lessThan: $to }, or: [{ and: [{ address: { equalTo: $v2 } }, { topics0: { equalTo: $v3 } }] }] }, ' +
      'orderBy: BLOCK_HEIGHT_ASC, first: 100, distinct: [BLOCK_HEIGHT]) { nodes { blockHeight } } }',
  );
  t.same(variables, { from: '100', to: '200', v2: TOKEN, v3: TRANSFER });
  t.notMatch(dictionaryRequest(entries, { from: 100, to: 199 }, { distinct: false, limit: 100 }).query, 'distinct');
  t.notMatch(
    dictionaryRequest([{ entity: 'evmLogs', conditions: [] }], { from: 1, to: 2 }, { distinct: true, limit: 3 }).query,
    ' or:',
    'no conditions: no or',
  );
});

t.test('answers: heights sorted and unique; a full page cannot be trusted', async (t) => {
  const data = { _metadata: {}, evmLogs: { nodes: [{ blockHeight: '7' }, { blockHeight: '3' }, { blockHeight: '7' }] } };
  t.same(dictionaryHeights(data, 10), { logs: [3, 7], transactions: [] });
  t.equal(dictionaryHeights(data, 3), undefined);
});

t.test('a narrowed plan skips eth_getLogs without matches and fetches transactions only where they can match', async (t) => {
  const plan = { transactions: true, blockHeights: [10], logs: { fromBlock: 1, toBlock: 100, topics: [[TRANSFER]] } };
  t.same(narrowPlan(plan, { logs: [], transactions: [] }), { transactions: true, blockHeights: [10], transactionHeights: [] });
  t.same(narrowPlan(plan, { logs: [5, 40], transactions: [3] }), {
    transactions: true,
    blockHeights: [10],
    transactionHeights: [3],
    logs: { fromBlock: 5, toBlock: 40, topics: [[TRANSFER]] },
  });
});
