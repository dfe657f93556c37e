import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { reindex } from '../apps/node/start-up/history-commands.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

const { anvil, workload, built } = await setupErc20Chain(t, 10);
const logger = createLogger({ level: 'silent', format: 'json' });

for (const kind of BACKENDS) {
  t.test(`${kind}: a changed schema.graphql is refused with what needs a reindex, and migrated in place with --allow-schema-migration`, async (t) => {
    const env = envFor(kind);
    const dir = await copyProject(t, built);
    const [migrated, fresh] = [uniqueSchemaName('idx_migr'), uniqueSchemaName('idx_migr')];
    const index = (schema: string, stopAtHeight: number, extra: string[] = []) =>
      runNode({
        options: nodeOptions(dir, anvil.url, ['--db-schema', schema, ...extra]),
        logger,
        version: 'test',
        env,
        signal: new AbortController().signal,
        settings: { stopAtHeight },
      });
    t.teardown(async () => {
      const db = await openDb(kind, dir);
      for (const s of [migrated, fresh]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
      await db.close();
    });

    await index(migrated, workload.fromBlock + 3);
    const file = join(dir, 'schema.graphql');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        .replace('transactionHash: String!', 'transactionHash: String!\n  memo: String')
        .replace('timestamp: Date!', 'timestamp: Date')
        .replace('contractAddress: String! @index', 'contractAddress: String!')
        .replace('value: BigInt!', 'value: BigInt! @index') + '\ntype Note @entity {\n  id: ID!\n  text: String\n}\n',
    );
    await t.rejects(index(migrated, workload.toBlock), {
      code: 'SCHEMA_CHANGED',
      message: new RegExp(
        [
          `schema.graphql changed since schema "idx_migr_\\w+" was indexed \\(to block ${workload.fromBlock + 3}\\); these changes need a reindex:`,
          '  - Transfer: field timestamp changed from Date! to Date: the rows already indexed hold values of the old type or nullability',
          'These would apply in place:',
          '  - Transfer: added field memo: String \\[rule new-nullable-field\\]',
          '  - Transfer: removed index on \\(contract_address\\) \\[rule index-only\\]',
          '  - Transfer: added index on \\(value\\) \\[rule index-only\\]',
          '  - added entity Note \\(table notes\\) \\[rule new-entity\\]',
          'Index the new version into a new schema with --db-schema <name> beside the one served \\(docs/deploy.md\\), run idx-node force-clean to start over, or start with --allow-schema-migration to migrate the tables in place',
        ].join('\\n'),
      ),
    });

    const reindexOptions = { ...nodeOptions(dir, anvil.url, ['--db-schema', migrated]), idx: dir };
    await t.rejects(reindex(reindexOptions, workload.fromBlock + 1, logger, env), { code: 'SCHEMA_CHANGED' }, 'reindex refuses a changed schema too');

    await index(migrated, workload.toBlock, ['--allow-schema-migration']);
    await index(migrated, workload.toBlock, ['--allow-schema-migration']);
    await index(fresh, workload.toBlock);
    const db = await openDb(kind, dir);
    try {
      const meta = async (key: string) =>
        (await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(migrated)}._metadata where key = $1`, [key]))[0]?.value;
      t.equal(await meta('schemaMigrationCount'), 1, 'one migration recorded; an unchanged start migrates nothing');
      const model = (await meta('schema')) as { entities: { name: string; fields: { name: string }[] }[] };
      t.same(
        model.entities.map((e) => e.name),
        ['StarterEntity', 'Account', 'Transfer', 'Note'],
        'the stored model is the new one',
      );
      t.ok(model.entities[2]!.fields.some((f) => f.name === 'memo'));
      t.same(await erc20Tables(db, migrated), await erc20Tables(db, fresh), 'indexing went on from where it stood: every version row equals a fresh index');
      const indexes = (
        await execute<{ indexname: string }>(
          db.kysely,
          `select indexname from pg_indexes where schemaname = $1 and tablename = 'transfers' order by indexname`,
          [migrated],
        )
      ).map((r) => r.indexname);
      const freshIndexes = (
        await execute<{ indexname: string }>(
          db.kysely,
          `select indexname from pg_indexes where schemaname = $1 and tablename = 'transfers' order by indexname`,
          [fresh],
        )
      ).map((r) => r.indexname);
      t.same(indexes, freshIndexes, 'the same indexes as a fresh schema');
      const columns = async (s: string) =>
        (
          await execute<{ c: string }>(
            db.kysely,
            `select table_name || '.' || column_name || ':' || data_type c from information_schema.columns where table_schema = $1 order by 1`,
            [s],
          )
        ).map((r) => r.c);
      t.same(await columns(migrated), await columns(fresh), 'the same tables and columns as a fresh schema');
    } finally {
      await db.close();
    }
  });
}
