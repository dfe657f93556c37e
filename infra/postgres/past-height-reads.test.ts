import t from 'tap';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { entity, schemaModel } from '../../test/support/test-models.ts';
import { createEntityStore } from './create-entity-store.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute, qualified } from './sql.ts';
import { visibleVersions } from './visible-versions.ts';

const backends = createTestBackends(t);

/** The plan's nodes, depth first. */
function planNodes(node: Record<string, unknown>): Record<string, unknown>[] {
  return [node, ...((node.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(planNodes)];
}

t.test('a page ordered by an indexed field at a past height skips the versions begun after it inside the index', (t) =>
  backends.each(t, async (t, b) => {
    const model = schemaModel([entity('Transfer', { blockHeight: { type: 'Int', index: { unique: false } } })]);
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: false });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: false });
    // 20 transfers a block over 1,000 blocks, never changed: each one's version begins at its block
    const operations: StoreOperation[] = Array.from({ length: 20_000 }, (_, i) => {
      const height = Math.floor(i / 20) + 1;
      return {
        entity: 'Transfer',
        id: `t${String(i).padStart(5, '0')}`,
        height,
        op: 'set',
        data: { id: `t${String(i).padStart(5, '0')}`, blockHeight: height },
      };
    });
    await store.flush({ operations });
    await execute(b.db.kysely, `analyze ${qualified(b.schema, 'transfers')}`);

    const page = `select id, block_height from ${qualified(b.schema, 'transfers')} where ${visibleVersions(true, undefined, '500::int8')} order by block_height desc, id desc limit 10`;
    const rows = await execute<{ id: string; block_height: number }>(b.db.kysely, page);
    t.same(
      rows.map((r) => r.id),
      Array.from({ length: 10 }, (_, k) => `t${String(9999 - k).padStart(5, '0')}`),
      'the newest transfers of block 500 and before',
    );

    const [{ 'QUERY PLAN': plan }] = await execute<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
      b.db.kysely,
      `explain (analyze, format json) ${page}`,
    );
    const nodes = planNodes(plan[0].Plan);
    const removed = nodes.reduce((sum, n) => sum + Number(n['Rows Removed by Filter'] ?? 0), 0);
    const scanned = nodes.find((n) => String(n['Index Cond'] ?? '').includes('lower('));
    t.ok(scanned !== undefined, `the index scan bounds the versions' first height (${JSON.stringify(nodes.map((n) => n['Node Type']))})`);
    t.ok(removed < 100, `${removed} rows fetched and thrown away (the 10,000 versions begun after block 500, before)`);
  }),
);
