import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import type { EntityStore, FieldFilter, FlushBatch, QueryOptions, EntityData } from '../../domain/entities/entity-store.ts';
import { CHAIN_COLUMN, chainMetadataTable, chainPoiTable } from '../../domain/entities/chain-tables.ts';
import { closingStoredOnly, planHistoricalWrites, planPlainWrites, type HistoricalTablePlan } from '../../domain/entities/plan-writes.ts';
import { createIdFilter, type IdFilter } from '../../domain/entities/id-filter.ts';
import { IdxError } from '../../domain/errors.ts';
import { checkHeight, decodeRow, emptyTablesSql, getByIdSql, POI_COLUMNS, queryByFieldsSql, toPoiRow } from './entity-read-sql.ts';
import { entityTableSql, type EntityTable } from './entity-table-sql.ts';
import { historicalFlushStatements, metadataStatement, plainStatements, poiStatement, rewindStatements, type Statement } from './entity-write-statements.ts';
import { metadataByKeys } from './read/metadata-reads.ts';
import { runStatements } from './run-statements.ts';
import { execute, qualified, quoteLiteral } from './sql.ts';

export { textArray } from './pg-arrays.ts';

export interface EntityStoreOptions {
  db: Kysely<any>;
  /** the project's database schema, already migrated and with its tables made */
  schema: string;
  model: SchemaModel;
  /** false for `--disable-historical` */
  historical: boolean;
  /** false for `--timestamp-field=false`: the tables have no insert/update time columns (`timestampColumns`) */
  timestampField: boolean;
  /**
   * `--multi-chain`: the chain id this store writes for. Its versions carry it in `__chain`, a rewind
   * touches only them, and `_metadata`/`_poi` are the chain's own tables (`domain/entities/chain-tables.ts`).
   */
  chainId?: string;
}

/** The `_metadata` key a rewind moves back. */
export const LAST_PROCESSED_HEIGHT = 'lastProcessedHeight';

/**
 * The entity store over PostgreSQL or PGlite: bulk, set-based writes (a few statements per table
 * per flush, whatever the number of entities), reads at a height, and rewind. The statements are
 * built in entity-table-sql.ts, entity-write-statements.ts and entity-read-sql.ts; this runs them.
 */
export function createEntityStore(options: EntityStoreOptions): EntityStore {
  const { db, schema, model, historical, timestampField } = options;
  const tables = new Map<string, EntityTable>();
  for (const entity of model.entities) tables.set(entity.name, entityTableSql(entity, model, schema, timestampField, options.chainId));
  const metadataTable = qualified(schema, options.chainId === undefined ? '_metadata' : chainMetadataTable(options.chainId));
  const poiTable = qualified(schema, options.chainId === undefined ? '_poi' : chainPoiTable(options.chainId));
  const ownRows = options.chainId === undefined ? '' : ` and ${CHAIN_COLUMN} = ${quoteLiteral(options.chainId)}`;
  const run = (statements: readonly Statement[], what: string) => runStatements(db, schema, statements, what);

  function table(entity: string): EntityTable {
    const t = tables.get(entity);
    if (t === undefined) {
      throw new IdxError('STORE_UNKNOWN_ENTITY', `"${entity}" is not an entity of this project's schema (known: ${[...tables.keys()].join(', ') || 'none'})`);
    }
    return t;
  }

  /**
   * Versions only begin at heights this store flushed, or at or below the `lastProcessedHeight`
   * found when it first flushed (a flush commits entities and that key together). A flush whose
   * blocks all lie above that mark cannot meet a version born at its own height, and skips the
   * replace step, a join over every id written. Were the mark ever wrong, the unique indexes would
   * refuse the write rather than let versions overlap.
   */
  let highWater: number | undefined;

  /** the ids stored in each table this store writes alone (`writesAlone`): the others need no closing */
  const storedIds = new Map<string, IdFilter>();

  async function mayReplace(ops: FlushBatch['operations']): Promise<boolean> {
    if (highWater === undefined) {
      const last = await getMetadata(LAST_PROCESSED_HEIGHT);
      if (typeof last !== 'number') return true;
      highWater = last;
    }
    for (const op of ops) if (op.height <= highWater) return true;
    return false;
  }

  /** The entity tables' statements, tables in schema order so concurrent writers would lock them in the same order. */
  async function entityStatements(operations: FlushBatch['operations']): Promise<Statement[]> {
    const statements: Statement[] = [];
    if (historical) {
      const plans = planHistoricalWrites(operations);
      for (const entity of plans.keys()) table(entity);
      const replace = plans.size > 0 && (await mayReplace(operations));
      const planned: { t: EntityTable; plan: HistoricalTablePlan }[] = [];
      for (const [name, t] of tables) {
        const plan = plans.get(name);
        if (plan === undefined) continue;
        const stored = storedIds.get(name);
        planned.push({ t, plan: stored === undefined ? plan : closingStoredOnly(plan, stored) });
      }
      statements.push(...historicalFlushStatements(planned, replace));
    } else {
      const plans = planPlainWrites(operations);
      for (const entity of plans.keys()) table(entity);
      for (const [name, t] of tables) {
        const plan = plans.get(name);
        if (plan !== undefined) statements.push(...plainStatements(t, plan));
      }
    }
    return statements;
  }

  async function query(entity: string, filters: readonly FieldFilter[], opts: QueryOptions = {}, atHeight?: number): Promise<EntityData[]> {
    const t = table(entity);
    const { sql, params } = queryByFieldsSql(t, historical, filters, opts, atHeight);
    const rows = await execute<Record<string, unknown>>(db, sql, params);
    return rows.map((r) => decodeRow(t, r));
  }

  async function getMetadata(keys: string | readonly string[]): Promise<any> {
    const list = typeof keys === 'string' ? [keys] : keys;
    const read = metadataByKeys(metadataTable, list);
    const rows = await execute<{ key: string; value: unknown }>(db, read.text, read.values);
    if (typeof keys === 'string') return rows[0]?.value ?? undefined;
    const out: Record<string, unknown> = {};
    for (const r of rows) out[r.key] = r.value;
    return out;
  }

  return {
    async flush(batch: FlushBatch) {
      const statements = await entityStatements(batch.operations);
      const poi = poiStatement(poiTable, batch.poi ?? []);
      if (poi !== undefined) statements.push(poi);
      const meta = metadataStatement(metadataTable, batch.metadata ?? {});
      if (meta !== undefined) statements.push(meta);
      await run(statements, 'store flush');
      if (historical) {
        let max = highWater ?? -1;
        for (const op of batch.operations) if (op.height > max) max = op.height;
        if (max >= 0) highWater = max;
      }
    },

    async get(entity, id, atHeight) {
      const t = table(entity);
      const { sql, params } = getByIdSql(t, historical, id, atHeight);
      const rows = await execute<Record<string, unknown>>(db, sql, params);
      return rows.length === 0 ? undefined : decodeRow(t, rows[0]!);
    },

    getByField(entity, field, value, opts, atHeight) {
      return query(entity, [[field, Array.isArray(value) ? 'in' : '=', value]], opts, atHeight);
    },

    getByFields: query,

    async emptyEntities() {
      const sql = emptyTablesSql(tables.values());
      return sql === undefined ? [] : (await execute<{ entity: string }>(db, sql)).map((r) => r.entity);
    },

    writesAlone(entities) {
      for (const entity of entities) {
        table(entity);
        if (historical && !storedIds.has(entity)) storedIds.set(entity, createIdFilter());
      }
    },

    async rewind(height, metadata = {}) {
      if (!historical) {
        throw new IdxError('REWIND_NEEDS_HISTORY', 'rewinding needs historical state, but this project runs with --disable-historical');
      }
      checkHeight(height);
      const where = { poiTable, metadataTable, ownRows };
      await run(rewindStatements(tables.values(), where, height, { ...metadata, [LAST_PROCESSED_HEIGHT]: height }), `rewind to ${height}`);
      highWater = height;
    },

    getMetadata,

    async setMetadata(entries) {
      const s = metadataStatement(metadataTable, entries);
      if (s !== undefined) await run([s], 'metadata update');
    },

    async getPoi(from, to) {
      const rows = await execute<Record<string, unknown>>(db, `select ${POI_COLUMNS} from ${poiTable} where id between $1 and $2 order by id`, [from, to]);
      return rows.map(toPoiRow);
    },
    async getLatestPoi(atOrBelow) {
      const [row] = await execute<Record<string, unknown>>(db, `select ${POI_COLUMNS} from ${poiTable} where id <= $1 order by id desc limit 1`, [atOrBelow]);
      return row === undefined ? undefined : toPoiRow(row);
    },
  };
}
