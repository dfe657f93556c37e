import t from 'tap';
import { parseSchema } from '../domain/entities/parse-schema.ts';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { createTestBackends } from './support/test-backends.ts';
import { gql, gqlData, startQueryService } from './support/query-client.ts';

const backends = createTestBackends(t);

// ENS declares `Domain.createdAt: BigInt!`; such fields are the project's own, stored and served like any other.
const model = parseSchema(`
type Domain @entity { id: ID!, name: String, createdAt: BigInt! @index, updatedAt: Date }
type Registry @entity { id: ID!, label: String }
`);

t.test('fields createdAt/updatedAt are written by the store and answered, filtered and ordered by idx-query', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, model, ...options });
    const set = (entity: string, id: string, height: number, data: Record<string, unknown>): StoreOperation => ({
      entity,
      id,
      height,
      op: 'set',
      data: { id, ...data },
    });
    await store.setMetadata({ schema: model, lastProcessedHeight: 3 });
    await store.flush({
      operations: [
        set('Domain', 'a', 1, { name: 'a.eth', createdAt: 1_600_000_000n, updatedAt: new Date('2020-09-13T12:26:40Z') }),
        set('Domain', 'b', 1, { name: 'b.eth', createdAt: 10n ** 20n, updatedAt: null }),
        set('Domain', 'c', 2, { name: 'c.eth', createdAt: 5n, updatedAt: new Date('2021-01-01T00:00:00Z') }),
        set('Domain', 'a', 3, { name: 'a.eth', createdAt: 1_600_000_000n, updatedAt: new Date('2022-01-01T00:00:00Z') }),
        set('Registry', 'r', 1, { label: 'root' }),
      ],
    });
    const q = await startQueryService(t, b.db, b.schema);

    const data = await gqlData(
      q.url,
      `{
        domain(id: "a") { createdAt updatedAt }
        then: domain(id: "a", blockHeight: "2") { updatedAt }
        newest: domains(orderBy: CREATED_AT_DESC) { nodes { id createdAt } }
        recent: domains(filter: { createdAt: { greaterThan: "100" }, updatedAt: { isNull: false } }) { nodes { id } }
        byTime: domains(filter: { updatedAt: { lessThan: "2021-06-01T00:00:00Z" } }, orderBy: UPDATED_AT_ASC) { nodes { id } }
        domains { groupedAggregates(groupBy: CREATED_AT) { keys } }
      }`,
    );
    t.same(data.domain, { createdAt: '1600000000', updatedAt: '2022-01-01T00:00:00.000Z' });
    t.same(data.then, { updatedAt: '2020-09-13T12:26:40.000Z' }, 'time travel reads the field of the older version');
    t.same(data.newest.nodes, [
      { id: 'b', createdAt: '100000000000000000000' },
      { id: 'a', createdAt: '1600000000' },
      { id: 'c', createdAt: '5' },
    ]);
    t.same(data.recent.nodes, [{ id: 'a' }]);
    t.same(data.byTime.nodes, [{ id: 'c' }]);
    t.same(data.domains.groupedAggregates.map((g: { keys: string[] }) => g.keys[0]).sort(), ['100000000000000000000', '1600000000', '5']);

    // idx's own times are not fields of the GraphQL schema, whether or not a field took their names.
    const registry = await gql(q.url, '{ registries { nodes { id createdAt } } }');
    t.match(registry.errors?.[0]?.message, /Cannot query field "createdAt" on type "Registry"/);
  }),
);
