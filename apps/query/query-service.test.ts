import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { createEntityStore } from '../../infra/postgres/create-entity-store.ts';
import type { Db } from '../../infra/postgres/create-db.ts';
import { DEPLOYMENTS_SCHEMA, DEPLOYMENTS_TABLE, deploymentsServing, promoteDeployment, readDeployment } from '../../infra/postgres/deployment-pointer.ts';
import { prepareProjectSchema } from '../../infra/postgres/prepare-project-schema.ts';
import { execute, qualified, quoteIdent } from '../../infra/postgres/sql.ts';
import { createTestBackends, uniqueSchemaName } from '../../test/support/test-backends.ts';
import { createQueryService, type DeploymentSwitch } from './query-service.ts';

const backends = createTestBackends(t);

const v1 = parseSchema('type Transfer @entity { id: ID!, value: BigInt! }');
// version 2 has another field: the GraphQL schema is rebuilt at the switch
const v2 = parseSchema('type Transfer @entity { id: ID!, value: BigInt!, memo: String }');

async function indexed(db: Db, schema: string, model: SchemaModel, value: bigint): Promise<void> {
  const options = { schema, historical: true, timestampField: false };
  await prepareProjectSchema(db.kysely, model, options);
  const store = createEntityStore({ db: db.kysely, model, ...options });
  await store.setMetadata({ schema: model, lastProcessedHeight: 1 });
  await store.flush({ operations: [{ entity: 'Transfer', id: 'a', height: 1, op: 'set', data: { id: 'a', value } }] });
}

t.test('-n names a deployment: served from its live schema, switched atomically when promoted, the old schema kept', (t) =>
  backends.each(t, async (t, b) => {
    const name = b.schema;
    const next = uniqueSchemaName('idx_test_v2');
    t.teardown(async () => {
      await execute(b.db.kysely, `drop schema if exists ${quoteIdent(next)} cascade`);
      await execute(b.db.kysely, `delete from ${qualified(DEPLOYMENTS_SCHEMA, DEPLOYMENTS_TABLE)} where name = $1`, [name]).catch(() => undefined);
    });
    await indexed(b.db, name, v1, 1n);
    await indexed(b.db, next, v2, 2n);
    await t.rejects(promoteDeployment(b.db, name, uniqueSchemaName('idx_none')), { code: 'PROJECT_NOT_INDEXED' }, 'only an indexed schema');
    t.equal(await readDeployment(b.db.kysely, name), undefined, 'no pointer yet: -n is the schema itself');

    const logger = createLogger({ level: 'silent', format: 'json', write: () => undefined });
    const service = await createQueryService({
      db: b.db,
      schema: name,
      settings: { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 10_000 },
      queryComplexity: 100,
      hotSchema: false,
      version: 'test',
      logger,
    });
    t.teardown(() => service.close());
    const ask = async (query: string) => (await service.execute({ query, method: 'POST' })).body as { data?: any; errors?: unknown[] };
    t.same((await ask('{ transfer(id: "a") { value } }')).data, { transfer: { value: '1' } });
    t.match((await ask('{ transfer(id: "a") { memo } }')).errors, [{ message: /memo/ }], "version 1's GraphQL schema has no memo");

    const switches: DeploymentSwitch[] = [];
    service.onSwitch((s) => switches.push(s));
    const before = service.target();
    // a request that took the old target before the switch finishes there
    const inFlight = before.createContext();
    const pointer = await promoteDeployment(b.db, name, next);
    t.match(pointer, { name, schema: next, previous: name }, 'a first promotion replaces the schema of that name');
    t.equal(await service.reload(), true, 'the promotion is seen');
    t.equal(service.target().schema, next);
    t.equal(switches.length, 1);
    t.equal(switches[0]?.from, before);
    t.equal(inFlight.schema, name, 'a context taken before the switch still reads the old schema');
    t.same((await ask('{ transfer(id: "a") { value memo } }')).data, { transfer: { value: '2', memo: null } }, "version 2's answers and types");
    t.equal(await service.reload(), false, 'nothing moves twice');

    t.same(await deploymentsServing(b.db.kysely, next), [name], 'the live schema is known as served');
    t.same(await deploymentsServing(b.db.kysely, name), [], 'the old one is not, and is still there');
    // back again, by hand
    t.match(await promoteDeployment(b.db, name, name), { schema: name, previous: next });
    t.equal(await service.reload(), true);
    t.same((await ask('{ transfer(id: "a") { value } }')).data, { transfer: { value: '1' } }, 'a rollback is the same switch');
  }),
);
