import { readFileSync } from 'node:fs';
import t from 'tap';
import type { EntityData } from '../../../domain/entities/entity-store.ts';
import { parseSchema } from '../../../domain/entities/parse-schema.ts';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { createEntityStore } from '../../../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../../../infra/postgres/prepare-project-schema.ts';
import { readStoredProject } from '../../../infra/postgres/read-stored-project.ts';
import { execute, quoteIdent, type Executor } from '../../../infra/postgres/sql.ts';
import { createTestBackends } from '../../../test/support/test-backends.ts';
import { applySchemaChange } from './apply-schema-change.ts';

const backends = createTestBackends(t);
const fixture = (name: string) => readFileSync(new URL(`../../../infra/postgres/fixtures/${name}`, import.meta.url), 'utf8');
// The schema and writes of fixtures/layout-1.sql, which idx made before it followed SubQuery's layout.
const model = parseSchema(fixture('layout-1.graphql'));

const at = (s: string) => new Date(s);
const A1: EntityData = {
  id: 'a',
  priceETH: '1.5',
  imageURI: 'ipfs://first image',
  tokenID: 1n,
  txHash: '0x00ff',
  at: at('2024-02-29T12:34:56.789Z'),
  flag: true,
  count: -3,
  ratio: 0.25,
  amountsUSD: [1n, 10n ** 30n, null],
  dates: [at('2020-01-01T00:00:00Z')],
  hashes: ['0xdead', '0x'],
  names: ['x', 'with "quote"'],
  ratios: [1.5, NaN, null],
  kinds: ['MINT', null],
  kind: 'SWAP',
  meta: { deep: [1, 'two'] },
  info: { a: 1, b: 'b' },
  ownerId: 'acct',
};
const unset = Object.fromEntries(Object.keys(A1).map((k) => [k, null]));
/** what a mapping read at each height when the fixture was made */
const EXPECTED: Record<number, Record<string, Record<string, EntityData | undefined>>> = {
  1: {
    NewTTL: { a: A1, b: { ...unset, id: 'b', tokenID: 2n, imageURI: 'second' }, c: undefined },
    ERC20Account: { acct: { id: 'acct', balanceUSD: 5n } },
    Plain: { p: { id: 'p', n: 1 } },
  },
  2: {
    NewTTL: { a: { ...A1, priceETH: '2.25', txHash: '0xabcdef', at: at('1999-12-31T23:59:59.999Z') }, b: undefined, c: undefined },
    ERC20Account: { acct: { id: 'acct', balanceUSD: 5n } },
  },
  3: {
    NewTTL: {
      a: { ...A1, priceETH: '3', amountsUSD: [], ratios: [Infinity, -Infinity] },
      b: undefined,
      c: { ...unset, id: 'c', tokenID: -(10n ** 40n), ownerId: 'acct', imageURI: 'third image' },
    },
    ERC20Account: { acct: { id: 'acct', balanceUSD: 7n } },
    Plain: { p: { id: 'p', n: 1 } },
  },
};

/** Columns (in order, with types), indexes and constraints of a schema's entity tables: what SQL against it sees. */
async function layoutOf(db: Executor, schema: string): Promise<unknown> {
  const columns = await execute(
    db,
    `select table_name, column_name, udt_name, is_nullable, ordinal_position from information_schema.columns
      where table_schema = $1 and table_name not like '\\_%' order by table_name, ordinal_position`,
    [schema],
  );
  const indexes = await execute<{ indexname: string; indexdef: string }>(
    db,
    `select indexname, indexdef from pg_indexes where schemaname = $1 and tablename not like '\\_%' order by indexname`,
    [schema],
  );
  const constraints = await execute(
    db,
    `select r.relname, c.conname, c.contype from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
      where n.nspname = $1 and r.relname not like '\\_%' order by r.relname, c.conname`,
    [schema],
  );
  return { columns, indexes: indexes.map((i) => ({ ...i, indexdef: i.indexdef.replaceAll(schema, 'S') })), constraints };
}

/** Every version of every row, as text, with its block range and idx's insert time: nothing may be lost or changed. */
async function versionsOf(db: Executor, schema: string, table: string, historical: boolean): Promise<string[]> {
  const rows = await execute<{ v: string }>(
    db,
    `select concat_ws(' ', id, ${historical ? '__block_range' : "''"}, created_at) as v from ${quoteIdent(schema)}.${quoteIdent(table)} order by 1`,
  );
  return rows.map((r) => r.v);
}

t.test("a schema made before idx followed SubQuery's layout is upgraded in place at start: every version kept", (t) =>
  backends.each(t, async (t, { db, schema }) => {
    const plain = `${schema}_plain`;
    t.teardown(() => execute(db.kysely, `drop schema if exists ${quoteIdent(plain)} cascade`).then(() => undefined));
    await db.kysely
      .transaction()
      .execute((tx) =>
        execute(
          tx,
          fixture('layout-1.sql')
            .replace('CREATE SCHEMA __HISTORICAL__;', '')
            .replaceAll('__HISTORICAL__', quoteIdent(schema))
            .replaceAll('__PLAIN__', quoteIdent(plain)),
        ),
      );
    await t.rejects(readStoredProject(db.kysely, schema), { code: 'SCHEMA_LAYOUT_OLD', message: /Start idx-node \(this version\) on the project once/ });

    for (const [s, historical] of [
      [schema, true],
      [plain, false],
    ] as const) {
      const options = { schema: s, historical, timestampField: true, changesIndex: historical };
      const before = {
        new_t_t_ls: await versionsOf(db.kysely, s, 'new_ttls', historical),
        e_r_c20_accounts: await versionsOf(db.kysely, s, 'erc20_accounts', historical),
        plains: await versionsOf(db.kysely, s, 'plains', historical),
      };
      const poi = await execute(db.kysely, `select * from ${quoteIdent(s)}._poi order by id`);
      const lines: string[] = [];
      const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) });
      // the node's start: the stored model is upgraded first, then compared with schema.graphql (unchanged here)
      t.same(await applySchemaChange(db.kysely, model, { ...options, allowMigration: false, logger }), [], `${s}: no change of schema.graphql`);
      t.match(lines.join(''), /upgraded schema .* to SubQuery's table layout .*table new_ttls → new_t_t_ls.*column new_t_t_ls\.price_eth → price_e_t_h/);
      await prepareProjectSchema(db.kysely, model, options);

      const fresh = `${s}_fresh`;
      t.teardown(() => execute(db.kysely, `drop schema if exists ${quoteIdent(fresh)} cascade`).then(() => undefined));
      await prepareProjectSchema(db.kysely, model, { ...options, schema: fresh });
      t.same(
        await layoutOf(db.kysely, s),
        JSON.parse(JSON.stringify(await layoutOf(db.kysely, fresh)).replaceAll(fresh, s)),
        `${s}: laid out as a new schema is`,
      );

      for (const [table, versions] of Object.entries(before)) {
        t.same(await versionsOf(db.kysely, s, table, historical), versions, `${s}.${table}: every version, with its range and time`);
      }
      t.same(await execute(db.kysely, `select * from ${quoteIdent(s)}._poi order by id`), poi, `${s}: proof of indexing untouched`);

      const store = createEntityStore({ db: db.kysely, model, ...options });
      for (const height of historical ? [1, 2, 3] : [3]) {
        for (const [entity, ids] of Object.entries(EXPECTED[height]!)) {
          for (const [id, data] of Object.entries(ids)) {
            t.same(await store.get(entity, id, historical ? height : undefined), data, `${s}: ${entity} ${id} at ${height}`);
          }
        }
      }
      t.same(
        (await store.getByField('NewTTL', 'txHash', '0xABCDEF', {}, 2)).map((e) => e.id),
        historical ? ['a'] : [],
        'found by its bytes',
      );

      await store.flush({
        operations: [{ entity: 'NewTTL', id: 'a', height: 4, op: 'set', data: { ...A1, txHash: '0x00ff' } }],
        metadata: { lastProcessedHeight: 4 },
      });
      t.match(await store.get('NewTTL', 'a'), { txHash: '0x00ff', dates: [at('2020-01-01T00:00:00Z')] }, `${s}: indexing goes on`);
      t.same(await applySchemaChange(db.kysely, model, { ...options, allowMigration: false, logger }), [], 'a second start changes nothing');
    }
    const project = await readStoredProject(db.kysely, schema);
    t.equal(project.model.layout, 2, 'idx-query reads it');
    t.ok(project.changesTables.has('new_t_t_ls'), "the --changes-index indexes kept their purpose under the table's new name");
  }),
);
