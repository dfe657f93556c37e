import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { RunningQuery } from '../apps/query/run-query.ts';
import type { Db } from '../infra/postgres/create-db.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { balanceOf } from './support/erc20-balance.ts';
import { copyProject } from './support/project-copies.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { gqlData, startQueryService } from './support/query-client.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { readmeGraphql } from './support/readme-graphql.ts';

exitWhenDone();

// 10 blocks of 20 transfers (200 transfers, 10 mints), indexed with --proof-of-index so that
// `_poi` keeps the hash of every block that wrote entities.
const { anvil, client, workload, built } = await setupErc20Chain(t, 10);

/** idx-query with `--subgraph` and the given flags over `schema`, closed on teardown. */
const startSubgraphService = (t: { teardown(fn: () => unknown): void }, db: Db, schema: string, args: readonly string[] = []): Promise<RunningQuery> =>
  startQueryService(t, db, schema, ['--subgraph', ...args]);

interface Answer {
  status: number;
  data?: any;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function post(url: string, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, ...((await res.json()) as Omit<Answer, 'status'>) };
}

const blockOf = (n: number) => client.request<{ hash: string; timestamp: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);

for (const kind of BACKENDS) {
  t.test(`${kind}: The Graph's query dialect over the indexed ERC20 example`, async (t) => {
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_sg');
    await indexInProcess(kind, dir, anvil.url, ['--db-schema', schema, '--proof-of-index'], workload.toBlock);
    const db = await openIndexedDb(t, kind, dir, [schema]);
    const { url } = await startSubgraphService(t, db, schema, ['--query-complexity', '50', '--query-limit', '1000']);
    const endpoint = `${url}/subgraphs/name/${schema}`;
    /** a Graph query that must succeed */
    const graph = async (query: string, variables?: Record<string, unknown>) => {
      const a = await post(endpoint, query, variables);
      if (a.status !== 200 || a.errors !== undefined) throw new Error(`Graph query failed (${a.status}): ${JSON.stringify(a.errors)}\n${query}`);
      return a.data;
    };
    const subquery = (query: string, variables?: Record<string, unknown>) => gqlData(url, query, variables);
    const head = (await subquery('{ _metadata { lastProcessedHeight } }'))._metadata.lastProcessedHeight as number;
    t.equal(head, workload.toBlock, 'indexed to the end of the workload');
    // senders as the mapping stored them (the log's checksummed addresses)
    const senders = [
      ...new Set<string>(
        (
          await subquery(`{ transfers(first: 100, filter: { blockHeight: { greaterThan: "${workload.mintBlock}" } }) { nodes { fromId } } }`)
        ).transfers.nodes.map((n: any) => n.fromId),
      ),
    ];
    const total = (await subquery('{ transfers { totalCount } }')).transfers.totalCount as number;

    await t.test('collections, orderBy, where and relations answer as the SubQuery dialect does', async (t) => {
      const a = await graph(
        `{ transfers(first: 10, orderBy: value, orderDirection: desc, where: { value_gt: "1000" }) { id value timestamp blockHeight from { id balance } } }`,
      );
      const b = await subquery(
        `{ transfers(first: 10, orderBy: [VALUE_DESC], filter: { value: { greaterThan: "1000" } }) { nodes { id value timestamp blockHeight from { id balance } } } }`,
      );
      t.equal(a.transfers.length, 10);
      t.same(a.transfers, b.transfers.nodes, 'ids, values, ISO timestamps and the related account');
      t.ok(
        a.transfers.every((x: any, i: number) => i === 0 || BigInt(a.transfers[i - 1].value) >= BigInt(x.value)),
        'by value, descending',
      );

      const all = await subquery(`{ transfers(first: 1000, orderBy: [ID_ASC]) { totalCount nodes { id } } }`);
      const byId = await graph(`{ transfers(first: 1000) { id } }`);
      t.same(byId.transfers, all.transfers.nodes, 'the default order is id ascending, as graph-node');
      t.equal(byId.transfers.length, total, 'first: 1000 reads every transfer');

      const id = senders[0]!;
      const ga = await graph(`query($id: ID!) { account(id: $id) { id balance sentTransfers(first: 5) { id value to { id } } } }`, { id });
      const sa = await subquery(`query($id: String!) { account(id: $id) { id balance sentTransfers(first: 5) { nodes { id value to { id } } } } }`, { id });
      t.same(ga.account, { ...sa.account, sentTransfers: sa.account.sentTransfers.nodes }, 'a single row with a @derivedFrom collection');
      t.equal(ga.account.sentTransfers.length, 5);
      t.same(await graph(`{ account(id: "0xnobody") { id } }`), { account: null }, 'an id that is not there: null');

      const ordered = await graph(
        `query($id: ID!) { account(id: $id) { sentTransfers(first: 3, orderBy: value, orderDirection: asc, where: { value_gt: "1" }) { value } } }`,
        { id },
      );
      const sOrdered = await subquery(
        `query($id: String!) { account(id: $id) { sentTransfers(first: 3, orderBy: [VALUE_ASC], filter: { value: { greaterThan: "1" } }) { nodes { value } } } }`,
        { id },
      );
      t.same(ordered.account.sentTransfers, sOrdered.account.sentTransfers.nodes, 'a nested collection takes orderBy and where');

      const byChild = await graph(`{ transfers(first: 30, orderBy: from__balance, orderDirection: desc) { id from { balance } } }`);
      const sByChild = await subquery(`{ transfers(first: 30, orderBy: [ACCOUNT_BY_FROM_ID__BALANCE_DESC]) { nodes { id from { balance } } } }`);
      t.same(byChild.transfers, sByChild.transfers.nodes, "a child's field orders (from__balance)");
      t.ok(
        byChild.transfers.every((x: any, i: number) => i === 0 || BigInt(byChild.transfers[i - 1].from.balance) >= BigInt(x.from.balance)),
        "by the sender's balance, descending",
      );
    });

    await t.test('where: nested from_, @derivedFrom children, or, _in, _nocase, relations by id', async (t) => {
      const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
      const cases: [string, string, string, string][] = [
        ['from_', 'transfers', `{ from_: { balance_gt: "0" } }`, `{ from: { balance: { greaterThan: "0" } } }`],
        ['or', 'transfers', `{ or: [{ value_lt: "1000" }, { blockHeight: "${workload.fromBlock + 2}" }] }`, ''],
        ['from (an id)', 'transfers', `{ from: "${senders[1]}" }`, `{ fromId: { equalTo: "${senders[1]}" } }`],
        [
          'from_contains_nocase',
          'transfers',
          `{ from_contains_nocase: "${senders[2]!.slice(2, 12).toLowerCase()}" }`,
          `{ fromId: { includesInsensitive: "${senders[2]!.slice(2, 12).toLowerCase()}" } }`,
        ],
        [
          'blockHeight_in, and',
          'transfers',
          `{ and: [{ blockHeight_in: ["${workload.fromBlock}", "${workload.fromBlock + 1}"] }, { value_gte: "10" }] }`,
          `{ and: [{ blockHeight: { in: ["${workload.fromBlock}", "${workload.fromBlock + 1}"] } }, { value: { greaterThanOrEqualTo: "10" } }] }`,
        ],
        ['sentTransfers_', 'accounts', `{ sentTransfers_: { value_gt: "1000000" } }`, `{ sentTransfers: { some: { value: { greaterThan: "1000000" } } } }`],
        ['id_not_in', 'accounts', `{ id_not_in: ["${senders[0]}"], balance_lt: "0" }`, ''],
      ];
      // the SubQuery filters of the two cases left blank above
      const subqueryOf: Record<string, string> = {
        or: `{ or: [{ value: { lessThan: "1000" } }, { blockHeight: { equalTo: "${workload.fromBlock + 2}" } }] }`,
        id_not_in: `{ id: { notIn: ["${senders[0]}"] }, balance: { lessThan: "0" } }`,
      };
      for (const [label, field, where, filter] of cases) {
        const a = await graph(`{ ${field}(first: 1000, where: ${where}) { id } }`);
        const b = await subquery(`{ ${field}(first: 1000, filter: ${filter || subqueryOf[label]}) { nodes { id } } }`);
        t.same(ids(a[field]), ids(b[field].nodes), label);
        t.ok(a[field].length > 0, `${label}: ${a[field].length} rows`);
      }
      const mixed = await post(endpoint, `{ transfers(where: { value_gt: "1", or: [{ value_lt: "5" }] }) { id } }`);
      t.match(mixed, { status: 200, errors: [{ extensions: { code: 'BAD_USER_INPUT' }, message: /cannot mix column filters with 'or'/ }] });
    });

    await t.test('skip pages through the same order', async (t) => {
      const pages: { id: string }[] = [];
      for (let skip = 0; skip < 210; skip += 70) pages.push(...(await graph(`{ transfers(first: 70, skip: ${skip}, orderBy: blockHeight) { id } }`)).transfers);
      const all = await subquery(`{ transfers(first: 1000, orderBy: [BLOCK_HEIGHT_ASC]) { nodes { id } } }`);
      t.same(pages, all.transfers.nodes, 'blockHeight, then id, page after page');
    });

    await t.test('time travel: block { number }, { hash }, { number_gte }', async (t) => {
      const n = workload.fromBlock + 4;
      const atN = await graph(`{ accounts(first: 1000, block: { number: ${n} }) { id balance sentTransfers(first: 1000) { id blockHeight } } }`);
      const sAtN = await subquery(
        `{ accounts(first: 1000, blockHeight: "${n}") { nodes { id balance sentTransfers(first: 1000) { nodes { id blockHeight } } } } }`,
      );
      t.same(
        atN.accounts,
        sAtN.accounts.nodes.map((x: any) => ({ ...x, sentTransfers: x.sentTransfers.nodes })),
        'balances and nested collections at the block',
      );
      t.ok(
        atN.accounts.every((a: any) => a.sentTransfers.every((x: any) => Number(x.blockHeight) <= n)),
        'nested collections read at the parent block',
      );
      // the zero address mints: the mapping takes its balance below zero, the token keeps it at 0
      const holders = atN.accounts.filter((a: any) => !/^0x0+$/.test(a.id));
      for (const a of holders.slice(0, 3)) t.equal(a.balance, String(await balanceOf(client, workload.token, a.id, n)), `${a.id}: balanceOf at ${n}`);
      const live = await graph(`{ accounts(first: 1000) { id balance } }`);
      t.notSame(
        live.accounts.map((a: any) => a.balance),
        atN.accounts.map((a: any) => a.balance),
        'the live balances differ',
      );

      const { hash } = await blockOf(n);
      const byHash = await graph(`{ accounts(first: 1000, block: { hash: "${hash.toUpperCase().replace('0X', '0x')}" }) { id balance } }`);
      t.same(
        byHash.accounts,
        atN.accounts.map(({ id, balance }: any) => ({ id, balance })),
        'a block hash answers as its number (hex in any case)',
      );
      const one = await graph(`query($id: ID!) { account(id: $id, block: { number: ${n} }) { balance } }`, { id: atN.accounts[0].id });
      t.equal(one.account.balance, atN.accounts[0].balance, 'the single-row field takes block too');

      t.same(await graph(`{ accounts(first: 1000, block: { number_gte: ${head} }) { id balance } }`), live, 'number_gte reached: the latest');
      const ahead = await post(endpoint, `{ accounts(block: { number_gte: ${head + 5} }) { id } }`);
      t.match(ahead, {
        status: 200,
        data: null,
        errors: [
          {
            extensions: { code: 'BAD_USER_INPUT' },
            message: `block.number_gte: subgraph ${schema} has only indexed up to block number ${head} and data for block number ${head + 5} is therefore not yet available`,
          },
        ],
      });
      const future = await post(endpoint, `{ accounts(block: { number: ${head + 1} }) { id } }`);
      t.match(future.errors?.[0], { extensions: { code: 'BAD_USER_INPUT' }, message: /has only indexed up to block number/ });
      const unknown = await post(endpoint, `{ accounts(block: { hash: "0x${'ab'.repeat(32)}" }) { id } }`);
      t.match(unknown.errors?.[0], { extensions: { code: 'BAD_USER_INPUT' }, message: /no block with that hash found.*--proof-of-index/ });
    });

    await t.test('_meta: the head block, its hash and time, the deployment', async (t) => {
      const meta = await graph(`{ _meta { block { number hash timestamp parentHash } deployment hasIndexingErrors } }`);
      const chainHead = await blockOf(head);
      t.same(meta._meta, {
        block: { number: head, hash: chainHead.hash, timestamp: Number(chainHead.timestamp), parentHash: null },
        deployment: schema,
        hasIndexingErrors: false,
      });
      const n = workload.fromBlock + 3;
      const at = await graph(`{ _meta(block: { number: ${n} }) { block { number hash } } }`);
      t.same(at._meta.block, { number: n, hash: (await blockOf(n)).hash }, 'a past block, its hash from _poi');
    });

    await t.test('limits and errors as graph-node words them, in the shapes of the main endpoint', async (t) => {
      t.match(await post(endpoint, `{ transfers(first: 1001) { id } }`), {
        status: 200,
        data: null,
        errors: [
          { message: 'The `first` argument must be between 0 and 1000, but is 1001', extensions: { code: 'QUERY_LIMIT_EXCEEDED' }, path: ['transfers'] },
        ],
      });
      t.match(await post(endpoint, `{ transfers(skip: 5001) { id } }`), {
        errors: [{ message: 'The `skip` argument must be between 0 and 5000, but is 5001', extensions: { code: 'QUERY_LIMIT_EXCEEDED' } }],
      });
      t.match(await post(endpoint, `{ transfers(first: -1) { id } }`), { errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
      t.match(await post(endpoint, `{ transfers { id nope } }`), {
        status: 400,
        errors: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' }, message: /Cannot query field "nope" on type "Transfer"/ }],
      });
      t.match(await post(endpoint, `{ transfers(where: { nope_gt: 1 }) { id } }`), {
        status: 400,
        errors: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
      });
      t.match(await post(endpoint, `{ transfers { nodes { id } } }`), { status: 400 }, 'the SubQuery shape is not this dialect');
      t.match(await post(`${url}/`, `{ transfers { id } }`), { status: 400 }, '/ keeps the SubQuery dialect');
      t.match(await post(endpoint, `{ transfers(where: { blockHeight: "12x" }) { id } }`), { status: 400, errors: [{ message: /BigInt must be a number/ }] });

      const other = await post(`${url}/subgraphs/name/someone/else`, `{ transfers { id } }`);
      t.match(other, { status: 404, errors: [{ extensions: { code: 'PROJECT_NOT_FOUND' }, message: new RegExp(`"someone/else".*serves "${schema}"`) }] });
      const short = await post(`${url}/subgraph`, `{ transfers(first: 2) { id } }`);
      t.match(short, { status: 200, data: { transfers: [{}, {}] } }, '/subgraph, the short form');
      const viaGet = await fetch(`${endpoint}?${new URLSearchParams({ query: 'query($n: Int) { transfers(first: $n) { id } }', variables: '{"n":3}' })}`);
      t.equal(((await viaGet.json()) as any).data.transfers.length, 3, 'GET with variables');
      const preflight = await fetch(endpoint, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      t.ok(preflight.headers.get('access-control-allow-origin'), 'CORS as the main endpoint');
    });

    await t.test("under idx-query's defaults: the docs' example, first: 1000, complexity", async (t) => {
      const defaults = await startSubgraphService(t, db, schema);
      const at = `${defaults.url}/subgraphs/name/${schema}`;
      const examples = ['../docs/graphql.md', '../README.md'].flatMap((f) => readmeGraphql(fileURLToPath(new URL(f, import.meta.url)), 'subgraph'));
      t.ok(examples.length > 1, 'docs/graphql.md and the README have Graph examples');
      for (const { query, where } of examples) {
        const a = await post(at, query);
        t.same({ status: a.status, errors: a.errors }, { status: 200, errors: undefined }, where);
        t.ok(a.data, `${where} answers data`);
      }
      const big = await post(at, `{ transfers(first: 1000) { id } }`);
      t.equal(big.data?.transfers.length, total, 'first: 1000 passes --query-limit 100: the Graph bound is 1000');
      const four = ['a', 'b', 'c', 'd'].map((alias) => `${alias}: transfers { from { id } to { id } }`).join(' ');
      const complex = await post(at, `{ ${four} }`);
      t.match(complex, { status: 400, errors: [{ extensions: { code: 'QUERY_TOO_COMPLEX' } }] }, '--query-complexity holds');
    });
  });
}
