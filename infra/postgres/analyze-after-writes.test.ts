import t from 'tap';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { createTestBackends, type TestBackend } from '../../test/support/test-backends.ts';
import { entity, schemaModel } from '../../test/support/test-models.ts';
import { createAnalyzeAfterWrites } from './analyze-after-writes.ts';
import { createEntityStore } from './create-entity-store.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute } from './sql.ts';

const backends = createTestBackends(t);

const model = schemaModel([entity('Account', { balance: 'BigInt' })]);

/** An Account table, its store, and its row estimate (`pg_class.reltuples`), analyzed with `timeShare`. */
async function accounts(b: TestBackend, timeShare: number) {
  await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: false });
  const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: false });
  const analyze = createAnalyzeAfterWrites({ db: b.db.kysely, schema: b.schema, model, timeShare });
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
  return { analyze, estimate, write };
}

t.test("a table's row estimate follows its writes: analyzed once 50 rows plus 10% changed (no time limit)", (t) =>
  backends.each(t, async (t, b) => {
    const { analyze, estimate, write } = await accounts(b, Infinity);
    t.teardown(() => analyze.close());
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

t.test('an analysis due sooner than its time share allows runs later on its own, with no flush after it', (t) =>
  backends.each(t, async (t, b) => {
    // each analysis may take 1% of the time: the next waits 100 times as long as the last took
    const { analyze, estimate, write } = await accounts(b, 0.01);
    t.teardown(() => analyze.close());
    await write(3000);
    t.equal(await estimate(), 3000, 'the first analysis runs at once');
    await write(400);
    const until = Date.now() + 60_000;
    while ((await estimate()) !== 3400 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    t.equal(await estimate(), 3400, 'the one due later ran by itself');
  }),
);

t.test('after close, no analysis runs', (t) =>
  backends.each(t, async (t, b) => {
    // 0.01 % of the time: the second waits 10,000 times as long as the first took (seconds at least)
    const { analyze, estimate, write } = await accounts(b, 0.0001);
    await write(3000);
    await write(400);
    await analyze.close();
    await new Promise((r) => setTimeout(r, 500));
    t.equal(await estimate(), 3000, 'the deferred one did not run');
    await write(400);
    t.equal(await estimate(), 3000, 'nor does a flush after close');
  }),
);
