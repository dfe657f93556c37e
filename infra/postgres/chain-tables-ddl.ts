import type { Kysely } from 'kysely';
import { CHAIN_COLUMN, chainMetadataTable, chainPoiTable } from '../../domain/entities/chain-tables.ts';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { execute, hasColumn, indexName, qualified, quoteIdent } from './sql.ts';

/**
 * `--multi-chain`: a chain's own `_metadata_<chain>` and `_poi_<chain>` tables (the shapes of
 * `_metadata` and `_poi`), and the `__chain` column on every entity table, indexed so that a chain's
 * rewind finds its rows. Run after the entity tables exist; safe to repeat and to race.
 */
export async function prepareChainTables(db: Kysely<any>, model: SchemaModel, options: { schema: string; chainId: string }): Promise<void> {
  const { schema, chainId } = options;
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    await execute(tx, `create table if not exists ${qualified(schema, chainMetadataTable(chainId))} (key text primary key, value jsonb)`);
    await execute(
      tx,
      `create table if not exists ${qualified(schema, chainPoiTable(chainId))} (id bigint primary key, chain_block_hash bytea, hash bytea, parent_hash bytea, operation_hash_root bytea)`,
    );
    // as migrations/0002_poi_block_hash.sql does for `_poi`: a block found by its hash
    await execute(
      tx,
      `create index if not exists ${quoteIdent(indexName(chainPoiTable(chainId), ['chain_block_hash'], 'idx'))} on ${qualified(schema, chainPoiTable(chainId))} (chain_block_hash)`,
    );
    for (const e of model.entities) {
      const table = qualified(schema, e.table);
      await execute(tx, `alter table ${table} add column if not exists ${CHAIN_COLUMN} text`);
      await execute(tx, `create index if not exists ${quoteIdent(indexName(e.table, [CHAIN_COLUMN], 'idx'))} on ${table} (${CHAIN_COLUMN})`);
    }
  });
}

/** `force-clean` of one chain of a multi-chain schema: its rows and its own tables go, the other chains' stay. */
export async function dropChainData(db: Kysely<any>, model: SchemaModel, options: { schema: string; chainId: string }): Promise<void> {
  const { schema, chainId } = options;
  await db.transaction().execute(async (tx) => {
    for (const e of model.entities) {
      if (await hasColumn(tx, schema, e.table, CHAIN_COLUMN))
        await execute(tx, `delete from ${qualified(schema, e.table)} where ${CHAIN_COLUMN} = $1`, [chainId]);
    }
    await execute(tx, `drop table if exists ${qualified(schema, chainMetadataTable(chainId))}`);
    await execute(tx, `drop table if exists ${qualified(schema, chainPoiTable(chainId))}`);
  });
}
