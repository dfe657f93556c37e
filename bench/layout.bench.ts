import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent, type Executor } from '../infra/postgres/sql.ts';
import { BIN, idxCli, programEnv } from '../test/support/idx-programs.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { compareSchemaNames, introspect } from './compare-graphql-names.ts';
import { compareSchemas } from './compare-schemas.ts';
import { indexOnce } from './index-once.ts';
import type { Benchmark } from './run.ts';
import { SUBQL_NODE_VERSION, subqlIndexOnce } from './subql-node.ts';
import { SUBQL_QUERY_VERSION, startSubqlQuery, waitForGraphql } from './subql-query.ts';
import { teardowns } from './teardowns.ts';

/**
 * The database as SubQuery lays it out, checked against SubQuery itself. bench/fixtures/layout-project
 * (names with runs of capitals, every type SubQuery's node stores, relations, an enum, a @jsonField)
 * is indexed over BLOCKS blocks of a chopsticks chain by @subql/node into PostgreSQL and by idx-node into
 * the same PostgreSQL and into its embedded PGlite; then
 * 1. the tables, of each of idx's: the same tables and columns with the same types, and every version of every row equal;
 * 2. the GraphQL names: @subql/query on SubQuery's schema and idx-query on idx's, introspected, every
 *    type, field, argument, input field and enum value compared.
 * Differences fail the bench, except those docs/DECISIONS.md names (KNOWN below). Needs DB_HOST
 * (SubQuery runs on PostgreSQL only); installs @subql/node and @subql/query on first use.
 */
const BLOCKS = Number(process.env.BENCH_LAYOUT_BLOCKS ?? 12);
const PROJECT = fileURLToPath(new URL('./fixtures/layout-project', import.meta.url));
const TABLES = ['new_t_t_ls', 'e_r_c20_accounts', 'metadata', 'daily_pool_stats', 'sheep'];

const bench: Benchmark = {
  name: "layout: idx's tables and GraphQL names against @subql/node's and @subql/query's",
  async run() {
    if (!process.env.DB_HOST) {
      console.log('skipped: SubQuery runs on PostgreSQL only; set DB_HOST and the other DB_* variables');
      return;
    }
    const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
    const env = { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };
    const td = teardowns();
    const failures: string[] = [];
    try {
      const chain = await startSubstrateChain();
      td.teardown(() => chain.close());
      await chain.newBlocks(BLOCKS);
      const toBlock = await chain.height();

      const parent = await mkdtemp(join(tmpdir(), 'idx-layout-'));
      td.teardown(() => rm(parent, { recursive: true, force: true }));
      const dir = join(parent, 'layout-project');
      await cp(PROJECT, dir, { recursive: true });
      await idxCli(dir, 'codegen');
      await idxCli(dir, 'build');

      const ours = uniqueSchemaName('idx_layout');
      const theirs = `${ours}_subql`;
      td.teardown(async () => {
        const db = await createDb({ env });
        await execute(db.kysely, `drop schema if exists ${quoteIdent(ours)} cascade; drop schema if exists ${quoteIdent(theirs)} cascade`);
        await db.close();
      });
      await indexOnce('idx-node, PostgreSQL', dir, chain.wsUrl, env, ours, toBlock, toBlock, toBlock);
      await subqlIndexOnce(`@subql/node ${SUBQL_NODE_VERSION}, PostgreSQL`, dir, chain.wsUrl, env, theirs, toBlock, toBlock);

      // idx on the embedded database too, from a copy of the project (its PGlite lives in the folder)
      const embedded = join(parent, 'layout-project-pglite');
      await cp(dir, embedded, { recursive: true });
      await indexOnce('idx-node, PGlite', embedded, chain.wsUrl, {}, ours, toBlock, toBlock, toBlock);

      const db = await createDb({ env });
      const pglite = await createDb({ env: {}, dataDir: join(embedded, '.idx-data') });
      try {
        for (const [label, oursDb] of [
          ['PostgreSQL', db],
          ['PGlite', pglite],
        ] as const) {
          const differences = await compareLayouts(db.kysely, ours, theirs, oursDb.kysely);
          const rows = await compareSchemas(db.kysely, ours, theirs, TABLES, oursDb.kysely);
          differences.push(...rows.differences);
          console.log(`idx on ${label}: ${TABLES.join(', ')}: ${rows.rows} row versions compared, ${differences.length} differences`);
          failures.push(...differences.map((d) => `${label}: ${d}`));
        }
      } finally {
        await pglite.close();
        await db.close();
      }

      const subql = await startSubqlQuery(theirs, env);
      td.teardown(() => subql.stop());
      const port = await deadPort();
      const idxQuery = spawn(process.execPath, ['--no-node-snapshot', BIN('idx-query'), '-n', ours, '--port', String(port), '--log-level', 'warn'], {
        env: programEnv(env),
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const idx = await waitForGraphql(idxQuery, `http://127.0.0.1:${port}/`, 'idx-query');
      td.teardown(() => idx.stop());
      const { onlyReference, onlyOurs } = compareSchemaNames(await introspect(subql.url), await introspect(idx.url));
      // a name idx-query gives must be @subql/query's; what only @subql/query has is a feature idx-query lacks, listed
      const wrong = onlyOurs.filter((n) => !IDX_ONLY.some((k) => k.test(n)));
      console.log(`GraphQL names only idx-query gives (${onlyOurs.length}, ${wrong.length} not idx's own features):`);
      for (const n of onlyOurs) console.log(`  ${IDX_ONLY.some((k) => k.test(n)) ? ' ' : '!'} ${n}`);
      console.log(`GraphQL names only @subql/query ${SUBQL_QUERY_VERSION} gives (${onlyReference.length}):`);
      for (const n of onlyReference) console.log(`    ${n}`);
      failures.push(...wrong.map((n) => `idx-query names ${n}, which @subql/query does not`));
    } finally {
      await td.run();
    }
    if (failures.length > 0) throw new Error(`idx's layout differs from SubQuery's:\n${failures.join('\n')}`);
    console.log("idx's tables, columns, types, rows and GraphQL names are SubQuery's");
  },
};

/**
 * What idx-query offers beyond @subql/query, or types otherwise, by name (docs/graphql.md): `count` in
 * aggregates, filters on Bytes (layout-project's `txHash`), and its `_metadata`, which is not made from
 * the project's names (`historicalStateEnabled`; `dbSize` a BigFloat; `dynamicDatasources` one JSON; `_metadatas` never null).
 */
const IDX_ONLY: RegExp[] = [
  /^\w+Aggregates\.count: Int!$/,
  /^NewTTLFilter\.txHash: StringFilter$/,
  /^_Metadata\.(historicalStateEnabled: Boolean|dbSize: BigFloat|dynamicDatasources: JSON)$/,
  /^Query\._metadatas: _Metadatas!$/,
];

/** Tables, columns and column types of two schemas' entity tables (idx's in `oursDb`), compared; one line per difference. */
async function compareLayouts(db: Executor, ours: string, theirs: string, oursDb: Executor): Promise<string[]> {
  const columns = (on: Executor, schema: string) =>
    execute<{ t: string; c: string; type: string }>(
      on,
      `select table_name as t, column_name as c, case when data_type = 'USER-DEFINED' then 'enum' else data_type end as type
         from information_schema.columns where table_schema = $1 and table_name not like '\\_%'
          and column_name not in ('_id', '_block_range', '__block_range', 'created_at', 'updated_at') order by 1, 2`,
      [schema],
    );
  const key = (r: { t: string; c: string; type: string }) => `${r.t}.${r.c}: ${r.type}`;
  const a = new Set((await columns(oursDb, ours)).map(key));
  const b = new Set((await columns(db, theirs)).map(key));
  const out = [
    ...[...b].filter((x) => !a.has(x)).map((x) => `idx has no column ${x}`),
    ...[...a].filter((x) => !b.has(x)).map((x) => `SubQuery has no column ${x}`),
  ];
  return out;
}

export default bench;
