import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ChangesSource } from '../apps/query/changes-source.ts';
import { ConnectionSource } from '../apps/query/connection-source.ts';
import { listenOnFreePort } from '../infra/http/listen-on-free-port.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { balanceOf } from './support/erc20-balance.ts';
import { copyProject } from './support/project-copies.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { gql, gqlData, startQueryService } from './support/query-client.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { readmeGraphql } from './support/readme-graphql.ts';
import { explainJson, recordingContext } from './support/statement-plans.ts';

exitWhenDone();

// 30 blocks of 20 transfers: 600 transfers plus 10 mints, ~110 accounts with many balance versions.
const { anvil, client, workload, built } = await setupErc20Chain(t, 30);

interface TransferRow {
  id: string;
  block_height: string;
  value: string;
  from_id: string;
  to_id: string;
  transaction_hash: string;
  timestamp: Date;
}

for (const kind of BACKENDS) {
  t.test(`${kind}: GraphQL over the indexed ERC20 example`, async (t) => {
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_q');
    await indexInProcess(kind, dir, anvil.url, ['--db-schema', schema, '--changes-index'], workload.toBlock);
    const db = await openIndexedDb(t, kind, dir, [schema]);
    const s = quoteIdent(schema);
    const transfers = await execute<TransferRow>(
      db.kysely,
      `select id, block_height::text, value::text, from_id, to_id, transaction_hash, timestamp from ${s}.transfers t order by t.block_height, t.id`,
    );
    // the queries below select up to ~20 fields; the default --query-complexity (10) is checked with the README's examples
    const { url } = await startQueryService(t, db, schema, ['--query-complexity', '50']);
    const unsafe = await startQueryService(t, db, schema, ['--unsafe', '--query-limit', '50', '--query-complexity', '20']);

    await t.test('every GraphQL example of README.md and docs/graphql.md answers under the default flags', async (t) => {
      const defaults = await startQueryService(t, db, schema);
      const readme = readmeGraphql(fileURLToPath(new URL('../README.md', import.meta.url)));
      const docs = readmeGraphql(fileURLToPath(new URL('../docs/graphql.md', import.meta.url)));
      t.ok(readme.length > 0 && docs.length > 0, 'the README and the docs have GraphQL examples');
      const examples = [...readme, ...docs];
      for (const { query, variables, operationName, where } of examples) {
        if (/^\s*subscription\b/.test(query)) continue;
        const res = await fetch(`${defaults.url}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables, operationName }),
        });
        const body = (await res.json()) as { data?: unknown; errors?: unknown };
        t.same({ status: res.status, errors: body.errors }, { status: 200, errors: undefined }, where);
        t.ok(body.data, `${where} answers data`);
        // an example naming a row must name one the starter's data has (the demo's workload has the same accounts)
        if (/\baccount\(id: "0x[0-9a-fA-F]{40}"/.test(query)) t.not((body.data as { account?: unknown }).account, null, `${where}: the account exists`);
      }
    });

    await t.test('a page ordered by block with nested accounts, and totalCount', async (t) => {
      const data = await gqlData(
        url,
        `{ transfers(first: 5, orderBy: BLOCK_HEIGHT_ASC) { totalCount nodes { id blockHeight value fromId from { id balance } to { id } timestamp } pageInfo { hasNextPage hasPreviousPage } } }`,
      );
      t.equal(data.transfers.totalCount, transfers.length);
      t.same(
        data.transfers.nodes.map((n: any) => n.id),
        transfers.slice(0, 5).map((r) => r.id),
      );
      const first = data.transfers.nodes[0];
      t.equal(first.blockHeight, transfers[0]!.block_height, 'BigInt as a decimal string');
      t.equal(first.value, transfers[0]!.value);
      t.equal(first.from.id, transfers[0]!.from_id, 'the relation resolves');
      t.equal(first.timestamp, transfers[0]!.timestamp.toISOString());
      t.same(data.transfers.pageInfo, { hasNextPage: true, hasPreviousPage: false });
    });

    await t.test('Relay: nodeId on every entity, node(nodeId), <entity>ByNodeId, query', async (t) => {
      const lists = await gqlData(
        url,
        `{ transfers(first: 3) { nodes { id nodeId } } accounts(first: 3) { nodes { id nodeId balance } } starterEntities(first: 3) { nodes { id nodeId } } }`,
      );
      for (const [connection, type, single, alias] of [
        ['transfers', 'Transfer', 'transfer', 'transfers'],
        ['accounts', 'Account', 'account', 'accounts'],
        ['starterEntities', 'StarterEntity', 'starterEntity', 'starter_entities'],
      ] as const) {
        const nodes = lists[connection].nodes as { id: string; nodeId: string }[];
        t.equal(nodes.length, 3, `${connection} rows`);
        for (const n of nodes) {
          t.same(JSON.parse(Buffer.from(n.nodeId, 'base64').toString()), [alias, n.id], `${type} ${n.id}: base64 of ["${alias}", id], as PostGraphile`);
          const back = await gqlData(
            url,
            `query($n: ID!) { node(nodeId: $n) { __typename nodeId ... on ${type} { id } } one: ${single}ByNodeId(nodeId: $n) { id } }`,
            {
              n: n.nodeId,
            },
          );
          t.same(back, { node: { __typename: type, nodeId: n.nodeId, id: n.id }, one: { id: n.id } }, `${type} ${n.id} round trips`);
        }
      }
      const account = lists.accounts.nodes[0];
      const other = await gqlData(url, `query($n: ID!) { transferByNodeId(nodeId: $n) { id } node(nodeId: $n) { ... on Account { balance } } }`, {
        n: account.nodeId,
      });
      t.same(other, { transferByNodeId: null, node: { balance: account.balance } }, "an account's nodeId is no transfer");
      const gone = Buffer.from(JSON.stringify(['transfers', 'no-such-id'])).toString('base64');
      t.same(await gqlData(url, `{ node(nodeId: "${gone}") { nodeId } }`), { node: null }, 'an id that is not there: null');
      // as PostGraphile answers them: no entity, whichever field asks (docs/DECISIONS.md)
      const nul = Buffer.from(JSON.stringify(['transfers', 'a\u0000b'])).toString('base64');
      for (const bad of ['not a node id', nul])
        t.same(
          await gql(url, `query($n: ID!) { node(nodeId: $n) { nodeId } transferByNodeId(nodeId: $n) { id } }`, { n: bad }),
          { status: 200, data: { node: null, transferByNodeId: null } },
          `${JSON.stringify(bad)}: null from both, no error`,
        );
      const root = await gqlData(url, `{ query { transfers { totalCount } } }`);
      t.equal(root.query.transfers.totalCount, transfers.length, 'query: the root again');
    });

    await t.test('time travel: balances at a height equal balanceOf at that height', async (t) => {
      const h = workload.fromBlock + 10;
      const who = workload.recipients.slice(0, 5).map((a) => a.toLowerCase());
      const data = await gqlData(
        url,
        `query($h: String!, $ids: [String!]) { accounts(blockHeight: $h, filter: {id: {inInsensitive: $ids}}) { nodes { id balance } } }`,
        { h: String(h), ids: who },
      );
      for (const n of data.accounts.nodes) t.equal(n.balance, String(await balanceOf(client, workload.token, n.id, h)), `${n.id} at ${h}`);
    });

    await t.test("accountChanges: each balance change is its block's transfers; CREATE, then UPDATEs; pages join up", async (t) => {
      const from = workload.fromBlock + 5;
      const to = workload.fromBlock + 15;
      const changes: any[] = [];
      let after: string | null = null;
      let answered: any;
      for (;;) {
        answered = (
          await gqlData(
            url,
            `query($f: Int!, $t: Int, $a: Cursor) { accountChanges(fromHeight: $f, toHeight: $t, first: 7, after: $a) {
              fromHeight toHeight totalCount pageInfo { hasNextPage endCursor }
              nodes { id height mutation before { balance } after { balance sentTransfers(first: 1, orderBy: BLOCK_HEIGHT_DESC) { nodes { blockHeight } } } }
            } }`,
            { f: from, t: to, a: after },
          )
        ).accountChanges;
        changes.push(...answered.nodes);
        if (!answered.pageInfo.hasNextPage) break;
        after = answered.pageInfo.endCursor;
      }
      t.same([answered.fromHeight, answered.toHeight, answered.totalCount], [from, to, changes.length]);
      const net = new Map<string, bigint>();
      for (const x of transfers) {
        const h = Number(x.block_height);
        if (h < from || h >= to) continue;
        net.set(`${x.to_id}@${h}`, (net.get(`${x.to_id}@${h}`) ?? 0n) + BigInt(x.value));
        net.set(`${x.from_id}@${h}`, (net.get(`${x.from_id}@${h}`) ?? 0n) - BigInt(x.value));
      }
      t.same(changes.map((c) => `${c.id}@${c.height}`).sort(), [...net.keys()].sort(), 'one change per account and block it took part in');
      for (const c of changes) {
        const delta = BigInt(c.after.balance) - BigInt(c.before?.balance ?? 0);
        if (delta !== net.get(`${c.id}@${c.height}`)) t.fail(`${c.id} at ${c.height}: balance moved ${delta}, transfers ${net.get(`${c.id}@${c.height}`)}`);
        if (c.mutation !== (c.before === null ? 'CREATE' : 'UPDATE')) t.fail(`${c.id} at ${c.height}: ${c.mutation}`);
        // relations of the version after read at the change's height
        const last = c.after.sentTransfers.nodes[0];
        if (last !== undefined && Number(last.blockHeight) > c.height) t.fail(`${c.id} at ${c.height}: a transfer from block ${last.blockHeight}`);
      }
      t.ok(changes.length > 40 && changes.some((c) => c.mutation === 'CREATE'), `${changes.length} changes checked`);
      const sorted = [...changes].sort((a, b) => a.height - b.height || (a.id < b.id ? -1 : 1));
      t.same(changes, sorted, 'in height, then id order');
      const capped = await gqlData(url, `{ accountChanges(fromHeight: 0, toHeight: 100000, first: 0) { toHeight } }`);
      t.equal(capped.accountChanges.toHeight, workload.toBlock + 1, 'toHeight stops just past the last indexed block');
      const bad = await gql(url, `{ accountChanges(fromHeight: 9, toHeight: 3) { totalCount } }`);
      t.match(bad.errors?.[0], { extensions: { code: 'BAD_USER_INPUT' }, message: 'toHeight (3) is below fromHeight (9)' });
    });

    if (kind === 'postgres') {
      await t.test('ordered pages come from an index, in historical mode too (PostgreSQL plans)', async (t) => {
        await execute(db.kysely, `vacuum analyze ${s}.transfers`);
        const { ctx, tables, last } = await recordingContext(db, schema);
        const transfersTable = tables.get('Transfer')!;
        // The statement the service runs for a page, explained.
        const plan = async (args: Record<string, unknown>, height?: bigint) => {
          await new ConnectionSource(ctx, transfersTable, args, height).page();
          return explainJson(db, last());
        };
        const scanned = (json: string) =>
          Math.max(...[...json.matchAll(/"Node Type":\s*"Index Scan[^"]*",[^{}]*?"Actual Rows":\s*(\d+)/g)].map((m) => Number(m[1])));
        for (const [label, args, height] of [
          ['live, by block', { first: 20, orderBy: ['BLOCK_HEIGHT_ASC'] }, undefined],
          ['live, by block descending', { first: 20, orderBy: ['BLOCK_HEIGHT_DESC'] }, undefined],
          ['at a height, by block', { first: 20, orderBy: ['BLOCK_HEIGHT_ASC'] }, BigInt(workload.fromBlock + 10)],
        ] as const) {
          const json = await plan(args, height);
          t.notMatch(json, /"Node Type":\s*"Sort"/, `${label}: no full sort`);
          t.match(json, /"Index Name":\s*"transfers_block_height_idx"/, `${label}: walks the block_height index`);
          // The id tie-break sorts each block's 20 transfers (an Incremental Sort), never the table.
          t.ok(scanned(json) <= 60, `${label}: reads ${scanned(json)} of ${transfers.length} rows`);
        }
        // changes in a window come from the (lower, id) and (upper, id) indexes, a page at a time
        await execute(db.kysely, `vacuum analyze ${s}.accounts`);
        const accountsTable = tables.get('Account')!;
        for (const filter of [undefined, { balance: { greaterThan: '0' } }]) {
          await new ChangesSource(ctx, accountsTable, { fromHeight: workload.fromBlock + 10, toHeight: workload.fromBlock + 20, first: 10, filter }).page();
          const json = await explainJson(db, last(/full join/));
          const label = filter === undefined ? 'changes' : 'filtered changes';
          t.match(json, /"Index Name":\s*"accounts_lower_id_begun"/, `${label}: versions begun, from their index`);
          t.match(json, /"Index Name":\s*"accounts_upper_id_ended"/, `${label}: versions ended, from theirs`);
          t.notMatch(json, /"Node Type":\s*"Seq Scan"/, `${label}: no table scan`);
          t.ok(scanned(json) <= 40, `${label}: reads ${scanned(json)} index rows for a page of 10`);
        }
        const byId = await plan({ first: 20 });
        t.match(byId, /"Index Name":\s*"transfers_id_live"/, 'the default order (PRIMARY_KEY_ASC) walks the live-id index');
        t.notMatch(byId, /"Node Type":\s*"Sort"/);
      });
    }

    await t.test('HTTP: GET and POST, errors with codes, /health, 404, _metadata', async (t) => {
      const viaGet = await gql(url, `query($n: Int) { transfers(first: $n) { nodes { id } } }`, { n: 2 }, 'GET');
      t.equal(viaGet.status, 200);
      t.equal(viaGet.data.transfers.nodes.length, 2, 'GET with variables');
      const viaGraphqlPath = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ accounts(first: 1) { totalCount } }' }),
      });
      t.equal(viaGraphqlPath.status, 200, '/graphql answers too');
      const syntax = await gql(url, `{ transfers(first: 1) { nodes { id }`);
      t.match(syntax, { status: 400, errors: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
      const unknown = await gql(url, `{ transfers { nodes { nope } } }`);
      t.match(unknown, { status: 400, errors: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' }, message: /nope/ }] });
      const notJson = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' });
      t.equal(notJson.status, 400);
      const health = await fetch(`${url}/health`);
      t.equal(health.status, 200, '/health: the database answers');
      const missing = await fetch(`${url}/nope`);
      t.same(
        { status: missing.status, body: await missing.json() },
        { status: 404, body: { statusCode: 404, message: 'Cannot GET /nope', error: 'Not Found' } },
      );
      const cors = await fetch(`${url}/`, { method: 'OPTIONS', headers: { origin: 'http://example.com', 'access-control-request-method': 'POST' } });
      t.ok(cors.headers.get('access-control-allow-origin'), 'CORS preflight answered');
      const meta = await gqlData(
        url,
        `{ _metadata { lastProcessedHeight targetHeight chain genesisHash specName indexerNodeVersion queryNodeVersion historicalStateEnabled rowCountEstimate { table estimate } dbSize } _metadatas { totalCount nodes { chain } } other: _metadata(chainId: "1") { chain } }`,
      );
      t.match(meta._metadata, {
        lastProcessedHeight: workload.toBlock,
        chain: '31337',
        specName: 'ethereum',
        indexerNodeVersion: 'test',
        queryNodeVersion: 'test',
        historicalStateEnabled: true,
      });
      t.match(meta._metadata.genesisHash, /^0x[0-9a-f]{64}$/);
      t.same(
        meta._metadata.rowCountEstimate.map((r: any) => r.table),
        ['accounts', 'starter_entities', 'transfers'],
      );
      if (kind === 'pglite') {
        // no autovacuum in PGlite: the node analyzes the tables as they grow, so the estimate is not 0
        const [{ n }] = await execute<{ n: string }>(db.kysely, `select count(*)::text as n from ${quoteIdent(schema)}.transfers`);
        const transfers = meta._metadata.rowCountEstimate.find((r: any) => r.table === 'transfers').estimate;
        t.ok(transfers >= Number(n) * 0.9 && transfers <= Number(n), `the transfers estimate (${transfers}) is within 10% of the ${n} rows`);
      }
      t.ok(Number(meta._metadata.dbSize) > 0);
      t.same(meta._metadatas, { totalCount: 1, nodes: [{ chain: '31337' }] });
      t.equal(meta.other, null, '_metadata of another chain');
    });

    await t.test('--indexer: /health and _metadata come from the node', async (t) => {
      let healthy = true;
      const node = createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/health') {
          res.statusCode = healthy ? 200 : 500;
          res.end(JSON.stringify(healthy ? {} : { status: 500, error: 'fetching blocks failed' }));
        } else if (req.url === '/meta') res.end(JSON.stringify({ lastProcessedHeight: 999_999, targetHeight: 1_000_000, chain: '31337' }));
        else res.writeHead(404).end();
      });
      const nodePort = await listenOnFreePort(node, 20000 + Math.floor(Math.random() * 20000));
      t.teardown(() => new Promise((r) => node.close(r)));
      const q = await startQueryService(t, db, schema, ['--indexer', `http://127.0.0.1:${nodePort}`]);
      t.equal((await fetch(`${q.url}/health`)).status, 200);
      const meta = `{ _metadata { lastProcessedHeight targetHeight indexerHealthy } }`;
      t.same((await gqlData(q.url, meta))._metadata, { lastProcessedHeight: 999_999, targetHeight: 1_000_000, indexerHealthy: true }, 'live figures of /meta');
      healthy = false;
      const sick = await fetch(`${q.url}/health`);
      t.same(
        { status: sick.status, body: await sick.json() },
        { status: 500, body: { status: 500, error: `the indexer at http://127.0.0.1:${nodePort} is not healthy: fetching blocks failed` } },
      );
      t.equal((await gqlData(q.url, meta))._metadata.indexerHealthy, false);
      await new Promise((r) => node.close(r));
      const gone = await fetch(`${q.url}/health`);
      t.equal(gone.status, 500, 'an unreachable indexer is unhealthy');
      t.equal((await gqlData(q.url, meta))._metadata.lastProcessedHeight, workload.toBlock, 'metadata falls back to the database');
    });

    await t.test('the schema follows a changed model without a restart, unless --disable-hot-schema', async (t) => {
      const hot = await startQueryService(t, db, schema, [], { hotSchemaIntervalMs: 50 });
      const cold = await startQueryService(t, db, schema, ['--disable-hot-schema'], { hotSchemaIntervalMs: 50 });
      const describe = `{ __type(name: "StarterEntity") { description } }`;
      t.equal((await gqlData(hot.url, describe)).__type.description, null);
      await execute(db.kysely, `update ${s}._metadata set value = jsonb_set(value, '{entities,0,description}', '"changed by the node"') where key = 'schema'`);
      t.teardown(() => execute(db.kysely, `update ${s}._metadata set value = value #- '{entities,0,description}' where key = 'schema'`));
      let seen: string | null = null;
      for (let i = 0; i < 100 && seen === null; i++) {
        await new Promise((r) => setTimeout(r, 50));
        seen = (await gqlData(hot.url, describe)).__type.description;
      }
      t.equal(seen, 'changed by the node', 'the new model is served');
      t.equal((await gqlData(cold.url, describe)).__type.description, null, '--disable-hot-schema keeps the first schema');
    });

    await t.test('aggregates need --unsafe for sum', async (t) => {
      const q = `{ transfers { aggregates { count distinctCount { fromId } sum { value } } } }`;
      const safe = await gql(url, q);
      t.equal(safe.errors?.[0]?.extensions?.code, 'UNSAFE_AGGREGATE_DISABLED');
      t.match(safe.errors?.[0]?.message, /--unsafe/);
      t.equal(safe.data?.transfers.aggregates.count, transfers.length);
      const data = await gqlData(unsafe.url, q);
      t.equal(data.transfers.aggregates.sum.value, transfers.reduce((a, r) => a + BigInt(r.value), 0n).toString());
      t.equal(Number(data.transfers.aggregates.distinctCount.fromId), new Set(transfers.map((r) => r.from_id)).size);
    });
  });
}
