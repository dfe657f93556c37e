import t from 'tap';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { execute } from '../infra/postgres/sql.ts';
import { createTestBackends } from '../test/support/test-backends.ts';
import { entity, schemaModel } from '../test/support/test-models.ts';
import { replayIndexDef, replayWrites, writeFloor } from './write-floor.ts';

const backends = createTestBackends(t);

t.test('the replay writes again, batch by batch, every version the node wrote: replaced, deleted, born and ended in one batch', (t) =>
  backends.each(t, async (t, b) => {
    const model = schemaModel([entity('Account', { balance: 'BigInt' }), entity('Transfer', { value: 'BigInt' })]);
    const options = { schema: b.schema, historical: true, timestampField: false };
    await prepareProjectSchema(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, model, ...options });
    const set = (entity: string, id: string, height: number, value: bigint): StoreOperation => ({
      entity,
      id,
      height,
      op: 'set',
      data: entity === 'Account' ? { id, balance: value } : { id, value },
    });
    // one flush a block, as the node may; the replay's batches (3 blocks) cut across them
    for (let h = 1; h <= 10; h++)
      await store.flush({
        operations: [
          set('Account', 'hot', h, BigInt(h)),
          ...(h % 4 === 0 ? [set('Account', `cold${h}`, h, 1n)] : []),
          ...(h === 6 ? [{ entity: 'Account', id: 'cold4', height: h, op: 'remove' as const }] : []),
          set('Transfer', `t${h}`, h, BigInt(h * 10)),
        ],
      });
    const scratch = `${b.schema}_replay`;
    t.teardown(() => execute(b.db.kysely, `drop schema if exists "${scratch}" cascade`));
    // as a replay cut short leaves it on the source: not copied to the scratch tables, dropped after
    await execute(b.db.kysely, `create index accounts_replay_lower on "${b.schema}".accounts (lower(__block_range))`);
    const times = await replayWrites(b.db.kysely, b.schema, scratch, 1, 10, 3);
    t.equal(times.length, 4, 'a time per batch of 3 blocks over 10');
    const rows = (schema: string, table: string) =>
      execute(b.db.kysely, `select id, __block_range::text as range from "${schema}"."${table}" order by id, lower(__block_range)`);
    for (const table of ['accounts', 'transfers'])
      t.same(await rows(scratch, table), await rows(b.schema, table), `${table}: the same versions, each with its range`);
    const indexes = (schema: string) =>
      execute<{ n: number }>(b.db.kysely, `select count(*)::int as n from pg_indexes where schemaname = $1 and tablename = 'accounts'`, [schema]);
    t.same(
      await indexes(scratch),
      await indexes(b.schema),
      'the same indexes, and the read indexes of the replay (one left by an earlier replay) gone from the source',
    );

    // the closed-versions layout: the same versions, and the version index covers the ended ones only
    const closed = `${b.schema}_closed`;
    t.teardown(() => execute(b.db.kysely, `drop schema if exists "${closed}" cascade`));
    await replayWrites(b.db.kysely, b.schema, closed, 1, 10, 3, 'closed-versions');
    for (const table of ['accounts', 'transfers'])
      t.same(await rows(closed, table), await rows(b.schema, table), `closed-versions layout, ${table}: the same versions, each with its range`);
    const defs = await execute<{ def: string }>(b.db.kysely, `select indexdef as def from pg_indexes where schemaname = $1 and tablename = 'accounts'`, [
      closed,
    ]);
    t.match(
      defs.map((d) => d.def).find((d) => d.includes('(id, lower(__block_range))')),
      /WHERE \(NOT upper_inf\(__block_range\)\)$/,
      'closed-versions layout: the version index covers the ended versions',
    );

    const floor = await writeFloor(b.db.kysely, b.schema, 1, 10, 2);
    t.ok(floor.pace > 0 && floor.firstTenthSeconds > 0, 'the floor: a pace from the first and the last tenth');
    const left = await execute(b.db.kysely, `select 1 from pg_namespace where nspname = $1`, [`${b.schema}_floor`]);
    t.equal(left.length, 0, 'its scratch schema is dropped');
  }),
);

t.test('the closed-versions layout: the version index covers the ended versions only; every other index as written', (t) => {
  const versions = 'CREATE INDEX accounts_id_lower_versions ON s.accounts USING btree (id, lower(__block_range))';
  t.equal(replayIndexDef(versions, 'as-written'), versions);
  t.equal(replayIndexDef(versions, 'closed-versions'), `${versions} WHERE (NOT upper_inf(__block_range))`);
  for (const other of [
    'CREATE UNIQUE INDEX accounts_id_live ON s.accounts USING btree (id) WHERE upper_inf(__block_range)',
    'CREATE INDEX transfers_from_id_idx ON s.transfers USING btree (from_id, lower(__block_range))',
  ])
    t.equal(replayIndexDef(other, 'closed-versions'), other, other);
  t.end();
});
