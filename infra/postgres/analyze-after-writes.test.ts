import t from 'tap';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { entity, schemaModel } from '../../test/support/test-models.ts';
import { createAnalyzeAfterWrites } from './analyze-after-writes.ts';
import { createEntityStore } from './create-entity-store.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute } from './sql.ts';

const backends = createTestBackends(t);

t.test("a table's row estimate follows its writes: analyzed once 50 rows plus 10% changed", (t) =>
  backends.each(t, async (t, b) => {
    const model = schemaModel([entity('Account', { balance: 'BigInt' })]);
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: false });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: false });
    const analyze = createAnalyzeAfterWrites({ db: b.db.kysely, schema: b.schema, model });
    const estimate = async () =>
      Number(
        (
          await execute<{ n: number }>(
            b.db.kysely,
            `select c.reltuples::float8 as n from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = $1 and c.relname = 'accounts'`,
            [b.schema],
          )
        )[0]!.n,
      );
    let next = 0;
    const write = async (n: number) => {
      const operations: StoreOperation[] = Array.from({ length: n }, () => {
        const id = `a${next++}`;
        return { entity: 'Account', id, height: 1, op: 'set', data: { id, balance: 1n } };
      });
      await store.flush({ operations });
      await analyze.afterFlush(operations);
    };
    await write(40);
    t.ok((await estimate()) <= 0, 'below 50 rows: not analyzed yet');
    await write(3000);
    t.equal(await estimate(), 3040, 'analyzed: the estimate is the count');
    await write(200);
    t.equal(await estimate(), 3040, 'under 10% more: not yet');
    await write(200);
    t.equal(await estimate(), 3440, 'past it: analyzed again');
  }),
);
