import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { idxCli } from './support/idx-programs.ts';
import { atTransferStart, patchStarterMapping } from './support/starter-mapping.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

// REDEPLOY_BLOCKS=2000 measures the figure (docs/deploy.md); the suite runs a smaller chain.
const BLOCKS = Number(process.env.REDEPLOY_BLOCKS ?? 20);
const { anvil, workload, built } = await setupErc20Chain(t, BLOCKS);

/** Every version row of the ERC20 tables and the new ones, with the new column, without wall-clock columns. */
async function tables(db: Awaited<ReturnType<typeof openDb>>, schema: string) {
  const s = quoteIdent(schema);
  const q = (sql: string) => execute(db.kysely, sql);
  return {
    transfers: await q(
      `select id, block_height::text, timestamp, from_id, to_id, value::text, transaction_hash, contract_address, memo, __block_range::text as range from ${s}.transfers order by id, lower(__block_range)`,
    ),
    accounts: await q(`select id, balance::text, __block_range::text as range from ${s}.accounts order by id, lower(__block_range)`),
    starters: await q(`select id, block_height::text, __block_range::text as range from ${s}.starter_entities order by id`),
    notes: await q(`select id, text, __block_range::text as range from ${s}.notes order by id`),
    columns: await execute(
      db.kysely,
      `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = $1 order by table_name, column_name`,
      [schema],
    ),
    indexes: (await execute<{ indexdef: string }>(db.kysely, `select indexdef from pg_indexes where schemaname = $1 order by indexname`, [schema])).map((r) =>
      r.indexdef.replaceAll(schema, 'S'),
    ),
  };
}

for (const kind of BACKENDS) {
  t.test(`${kind}: additive changes apply in place without a reindex, exact against a fresh index; a changed handler is refused naming it`, async (t) => {
    const env = envFor(kind);
    const dir = await copyProject(t, built);
    const [served, fresh] = [uniqueSchemaName('idx_redep'), uniqueSchemaName('idx_redep')];
    let lines: string[] = [];
    const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) });
    const index = (schema: string, extra: string[] = []) =>
      runNode({
        options: nodeOptions(dir, anvil.url, ['--db-schema', schema, ...extra]),
        logger,
        version: 'test',
        env,
        signal: new AbortController().signal,
        settings: { stopAtHeight: workload.toBlock },
      });
    t.teardown(async () => {
      const db = await openDb(kind, dir);
      for (const s of [served, fresh]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
      await db.close();
    });

    await index(served);

    // version 2: a nullable field, a new entity, a new index; codegen rewrites the entity classes, the handlers stay
    const file = join(dir, 'schema.graphql');
    await writeFile(
      file,
      (await readFile(file, 'utf8'))
        .replace('transactionHash: String!', 'transactionHash: String!\n  memo: String')
        .replace('value: BigInt!', 'value: BigInt! @index') + '\ntype Note @entity {\n  id: ID!\n  text: String\n}\n',
    );
    await idxCli(dir, 'codegen');
    await idxCli(dir, 'build');
    lines = [];
    await index(served);
    const log = lines
      .map((l) => JSON.parse(l) as { message?: string; msg?: string })
      .map((l) => l.message ?? l.msg ?? '')
      .join('\n');
    const applied = /applied in place to schema "[^"]+" in (\d+) ms, no reindex[^\n]*\n((?: {2}- [^\n]*\n?)+)/.exec(log);
    t.ok(applied, 'the node says what it applied in place');
    t.comment(`${BLOCKS} blocks (${workload.toBlock - workload.startBlock + 1} indexed), ${kind}: applied in ${applied?.[1]} ms`);
    t.ok(Number(applied?.[1]) < 1000, 'in under a second');
    t.match(applied?.[2], /Transfer: added field memo: String \[rule new-nullable-field: /);
    t.match(applied?.[2], /Transfer: added index on \(value\) \[rule index-only: /);
    t.match(applied?.[2], /added entity Note \(table notes\) \[rule new-entity: /);
    t.notMatch(log, /reindex needed|REINDEX_NEEDED/);

    await index(fresh);
    const db = await openDb(kind, dir);
    try {
      const [a, b] = [await tables(db, served), await tables(db, fresh)];
      t.ok(a.transfers.length > 0, 'rows to compare');
      t.ok(
        a.transfers.every((r) => r.memo === null),
        'old rows read null for the new field',
      );
      t.same(a, b, 'every version row, column and index equals a fresh index of version 2');
      const [count] = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(served)}._metadata where key = 'schemaMigrationCount'`);
      t.equal(count?.value, 1);
    } finally {
      await db.close();
    }

    // version 3: handleTransfer's code changes: refused, naming it and not handleBlock, nothing touched
    await patchStarterMapping(dir, (source) => atTransferStart(source, 'logger.info("v3");'));
    await idxCli(dir, 'build');
    await t.rejects(index(served), {
      code: 'REINDEX_NEEDED',
      message: new RegExp(
        `the project changed since schema "${served}" was indexed \\(to block ${workload.toBlock}\\); these changes need a reindex:\\n` +
          `  - handler handleTransfer of dataSources\\[0\\] \\(ethereum/Runtime at 0x[0-9a-fA-F]+\\): code changed: the rows it wrote for blocks \\d+–${workload.toBlock} came from the old code\\n` +
          'Index the new version into a new schema with --db-schema <name>',
      ),
    });
    await t.rejects(index(served), { message: /^(?![\s\S]*handleBlock)/ }, 'handleBlock is unchanged');
    lines = [];
    await index(served, ['--allow-schema-migration']);
    t.match(lines.join('\n'), /--allow-schema-migration: applied in place[^\n]*handler handleTransfer/, "SubQuery's flag goes on with the new code, saying so");
    await index(served);
  });
}
