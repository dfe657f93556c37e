import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { getIntrospectionQuery } from 'graphql';
import t from 'tap';
import WebSocket from 'ws';
import type { EntityData, StoreOperation } from '../domain/entities/entity-store.ts';
import { listenOnFreePort } from '../infra/http/listen-on-free-port.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { createTestBackends } from './support/test-backends.ts';
import { entity, schemaModel } from './support/test-models.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { overWs } from './support/over-ws.ts';
import { aliasFlood, startAttackers } from './support/query-attackers.ts';
import { gql, startSubscriptionService, type GqlAnswer } from './support/query-client.ts';

exitWhenDone();

// One client must not be able to crash idx-query or stall the others: every request is bounded
// over HTTP and graphql-ws alike (docs/graphql.md, Limits).
const backends = createTestBackends(t);
const model = schemaModel([
  entity('Account', {
    name: 'String',
    balance: 'BigInt',
    sent: { type: { kind: 'entity', entity: 'Transfer' }, derivedFrom: 'from', list: true, nullable: false },
  }),
  entity('Transfer', { from: { type: { kind: 'entity', entity: 'Account' } }, value: 'BigInt', note: 'String' }),
]);
const op = (e: string, id: string, height: number, data: EntityData): StoreOperation => ({ entity: e, id, height, op: 'set', data: { id, ...data } });

/** the close code of a raw graphql-transport-ws connection after sending `message` */
function closeCodeAfter(port: number, message: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://localhost:${port}/`, 'graphql-transport-ws');
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
    ws.on('message', (m) => {
      if (JSON.parse(String(m)).type === 'connection_ack') ws.send(message);
    });
    ws.on('close', (code) => resolve(code));
    ws.on('error', reject);
  });
}

const clean = (errors: unknown) => {
  const text = JSON.stringify(errors);
  return !/sqlState|RangeError|Maximum call stack|invalid byte sequence|overflows|out of range for type|violates/.test(text);
};

t.test('every request is bounded, over HTTP and websockets, with clean errors', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.setMetadata({ schema: model });
    // 150 accounts of distinct names; 100 transfers of 100 KB notes (10 MB a page)
    await store.flush({ operations: Array.from({ length: 150 }, (_v, i) => op('Account', `a${i}`, 1, { name: `n${i}`, balance: BigInt(i) })) });
    await store.flush({
      operations: Array.from({ length: 100 }, (_v, i) => op('Transfer', `t${i}`, 2, { fromId: `a${i}`, value: 1n, note: String(i % 10).repeat(100_000) })),
    });
    // an indexer that never answers: `_metadata` then waits on it, outside any SQL
    const stuck = createServer(() => undefined);
    await listenOnFreePort(stuck, 0);
    const stuckPort = (stuck.address() as AddressInfo).port;
    t.teardown(() => new Promise<void>((r) => (stuck.closeAllConnections(), stuck.close(() => r()))));
    const running = await startSubscriptionService(t, b, ['--aggregate', '--query-timeout', '1500', '--indexer', `http://localhost:${stuckPort}`]);
    const { url, port } = running;
    // a query asked of a service over HTTP and over a websocket, both answers returned
    const overBoth = (owner: { teardown(fn: () => unknown): void }, service: { url: string; port: number }) => {
      const ws = createClient({ url: `ws://localhost:${service.port}/`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
      owner.teardown(() => ws.dispose());
      return async (query: string, variables?: Record<string, unknown>) => [
        { via: 'HTTP', ...(await gql(service.url, query, variables)) },
        { via: 'ws', ...(await overWs(ws, query, variables)) },
      ];
    };
    const both = overBoth(t, running);

    await t.test("GraphiQL's introspection query answers under the defaults", async (t) => {
      for (const a of await both(
        getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true }),
      )) {
        t.equal(a.errors, undefined, a.via);
        t.ok(a.data.__schema.types.length > 20, `${a.via}: the schema's types`);
      }
    });

    await t.test('aliases, introspection and nesting are refused before they run', async (t) => {
      const cases: [string, string, RegExp][] = [
        [aliasFlood(900_000), 'QUERY_TOO_LARGE', /__schema at most 1|20000 tokens|more than 2000 fields/],
        [`{ ${Array.from({ length: 2500 }, (_v, i) => `a${i}: __typename`).join(' ')} }`, 'QUERY_TOO_LARGE', /more than 2000 fields/],
        ['{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', 'QUERY_TOO_LARGE', /nests the member lists/],
        [`{ ${'accounts { nodes { sent { nodes { from { '.repeat(400)} id ${'} } } } } '.repeat(400)} }`, 'QUERY_TOO_DEEP', /nested more than 64 levels/],
      ];
      for (const [query, code, message] of cases) {
        const started = performance.now();
        for (const a of await both(query)) {
          t.match(a.errors?.[0], { message, extensions: { code } }, `${a.via}: ${code} ${query.slice(0, 40)}`);
          t.ok(clean(a.errors), `${a.via}: no stack overflow`);
          if (a.via === 'HTTP') t.equal((a as GqlAnswer).status, 400);
        }
        t.ok(performance.now() - started < 3000, `refused in ${(performance.now() - started).toFixed(0)} ms`);
      }
      let deep: unknown = { name: { equalTo: 'n1' } };
      for (let i = 0; i < 2000; i++) deep = { and: [deep] };
      for (const a of await both('query($f: AccountFilter) { accounts(filter: $f) { totalCount } }', { f: deep })) {
        t.match(a.errors?.[0], { extensions: { code: 'QUERY_TOO_DEEP' } }, `${a.via}: deep variables`);
      }
    });

    await t.test('a websocket message is held to the HTTP body limit', async (t) => {
      const big = JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ __typename ${' '.repeat(2 * 1024 * 1024)} }` } });
      t.equal(await closeCodeAfter(port, big), 1009, 'a 2 MB subscribe closes the socket: message too big');
      const res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
      t.equal(res.status, 413, 'as HTTP answers 413');
      t.same((await gql(url, '{ __typename }')).data, { __typename: 'Query' }, 'the service still answers');
    });

    await t.test('answers and rows read are bounded', async (t) => {
      // under the default timeout: a loaded machine may take longer than 1.5 s to build 20 MB, and then answers
      // QUERY_TIMEOUT before the size limit is reached
      const sized = await startSubscriptionService(t, b, []);
      const page = (alias: string) => `${alias}: transfers(first: 100) { nodes { id note } }`;
      const one = await gql(sized.url, `{ ${page('a')} }`);
      t.equal(one.errors, undefined, 'a 10 MB page answers');
      for (const a of await overBoth(t, sized)(`{ ${page('a')} ${page('b')} }`)) {
        t.match(a, { data: null, errors: [{ message: /larger than 16 MB/, extensions: { code: 'RESPONSE_TOO_LARGE' } }] }, `${a.via}: 20 MB refused`);
      }
    });

    await t.test('execution time is bounded beyond SQL: --query-timeout covers resolvers', async (t) => {
      for (const a of await both('{ _metadata { lastProcessedHeight } }')) {
        t.match(a.errors?.[0], { extensions: { code: 'QUERY_TIMEOUT' } }, `${a.via}: a resolver waiting on the indexer`);
      }
    });

    await t.test('groupedAggregates answers at most --query-limit groups', async (t) => {
      for (const a of await both('{ accounts { groupedAggregates(groupBy: [NAME]) { keys } } }')) {
        t.match(
          a.errors?.[0],
          { message: /more than 100 groups \(--query-limit\)/, extensions: { code: 'QUERY_LIMIT_EXCEEDED' } },
          `${a.via}: 150 groups refused`,
        );
      }
      const few = await gql(url, '{ accounts(filter: { balance: { lessThan: "100" } }) { groupedAggregates(groupBy: [NAME]) { keys } } }');
      t.equal(few.data?.accounts.groupedAggregates.length, 100, '100 groups answer');
      // nested, per parent: a0…a2 sent one transfer each (t0…t2, notes of one digit repeated)
      const nested = await gql(url, '{ accounts(first: 3, orderBy: ID_ASC) { nodes { id sent { groupedAggregates(groupBy: [VALUE]) { keys count } } } } }');
      t.same(
        nested.data?.accounts.nodes.map((n: any) => n.sent.groupedAggregates),
        [[{ keys: ['1'], count: 1 }], [{ keys: ['1'], count: 1 }], [{ keys: ['1'], count: 1 }]],
        'nested groups',
      );
      const small = await startSubscriptionService(t, b, ['--aggregate', '--query-limit', '2']);
      const over = await gql(
        small.url,
        '{ accounts(first: 2, orderBy: ID_ASC) { nodes { id sent { groupedAggregates(groupBy: [ID]) { keys } } } } groupedAggregates: transfers { groupedAggregates(groupBy: [ID]) { keys } } }',
      );
      t.match(
        over.errors?.[0],
        { message: /more than 2 groups/, extensions: { code: 'QUERY_LIMIT_EXCEEDED' } },
        '--query-limit 2: 100 transfer groups refused',
      );
      t.same(
        over.data?.accounts.nodes.map((n: any) => n.sent.groupedAggregates.length),
        [1, 1],
        'nested groups within the limit answer',
      );
    });

    await t.test('values the database would refuse get clean errors', async (t) => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['query($n: String) { accounts(filter: { name: { equalTo: $n } }) { totalCount } }', { n: 'a\u0000b' }, /NUL character/],
        ['query($n: [String!]) { accounts(filter: { name: { in: $n } }) { totalCount } }', { n: ['x', '\u0000'] }, /NUL character/],
        ['query($h: String) { accounts(blockHeight: $h) { totalCount } }', { h: '9'.repeat(30) }, /beyond the largest block height/],
        ['query($v: BigFloat) { accounts(filter: { balance: { equalTo: $v } }) { totalCount } }', { v: '9'.repeat(200_000) }, /at most 1000 characters/],
        ['query($v: BigFloat) { accounts(filter: { balance: { equalTo: $v } }) { totalCount } }', { v: '1e1000000' }, /a number in the query is out of range/],
      ];
      for (const [query, variables, message] of cases) {
        for (const a of await both(query, variables)) {
          t.match(a.errors?.[0], { message }, `${a.via}: ${message}`);
          t.ok(clean(a.errors), `${a.via}: no database words`);
          t.notOk(JSON.stringify(a.errors).length > 1000, `${a.via}: a short error`);
        }
      }
    });

    // every trivial query must be answered (one cut off by --query-timeout fails above); nine in ten within 1 s: the
    // attackers share this process's event loop with the service, and on two busy cores one query in a run was
    // seen at 1.2–1.7 s while the others took milliseconds
    await t.test('under concurrent attacks trivial queries are all answered, nine in ten within 1 s, and the service stays up', async (t) => {
      const attackers = startAttackers(url, port, 4);
      const latencies: number[] = [];
      const until = Date.now() + 4000;
      while (Date.now() < until) {
        const t0 = performance.now();
        const a = await gql(url, '{ accounts(first: 1) { totalCount } }');
        latencies.push(performance.now() - t0);
        if (a.data?.accounts?.totalCount !== 150) t.fail(`trivial query: ${JSON.stringify(a)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const attacks = await attackers.stop();
      t.ok(attacks >= 8, `${attacks} attacks answered meanwhile`);
      const sorted = [...latencies].sort((a, b) => a - b);
      const p90 = sorted[Math.ceil(sorted.length * 0.9) - 1]!;
      t.ok(
        p90 < 1000,
        `${latencies.length} trivial queries: median ${sorted[sorted.length >> 1]!.toFixed(0)} ms, 90th percentile ${p90.toFixed(0)} ms, slowest ${sorted.at(-1)!.toFixed(0)} ms`,
      );
    });
  }),
);
