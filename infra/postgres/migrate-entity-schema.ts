import type { Kysely } from 'kysely';
import type { EntityModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import { describeChange, type SchemaChange } from '../../domain/entities/schema-diff.ts';
import { timestampColumns } from '../../domain/entities/timestamp-columns.ts';
import { IdxError } from '../../domain/errors.ts';
import { FULL_TEXT_COLUMN } from '../../domain/entities/entity-model.ts';
import { ENUM_ASIDE_SUFFIX } from '../../domain/entities/names.ts';
import { resolveColumn, toJsonText } from './column-codec.ts';
import { fullTextColumnDdl } from './full-text.ts';
import { textArray } from './create-entity-store.ts';
import { retypeExpression } from './retype-sql.ts';
import { buildTableDdl, indexOfStatement, type SchemaDdlOptions } from './schema-ddl.ts';
import { execute, hasColumn, qualified, quoteIdent, quoteLiteral, type Executor } from './sql.ts';

export interface MigrateOptions extends SchemaDdlOptions {
  /** `_metadata` keys written in the migration's transaction (the new `schema`, `schemaMigrationCount`) */
  metadata: Readonly<Record<string, unknown>>;
}

/** The index names the DDL of a model creates, by table: read back from the statements themselves, so this follows schema-ddl. */
function indexNames(model: SchemaModel, options: SchemaDdlOptions): Map<string, Set<string>> {
  const byTable = new Map<string, Set<string>>();
  for (const statement of buildTableDdl(model, options)) {
    const ix = indexOfStatement(statement);
    if (ix === undefined) continue;
    let set = byTable.get(ix.table);
    if (set === undefined) byTable.set(ix.table, (set = new Set()));
    set.add(ix.name);
  }
  return byTable;
}

/**
 * `--allow-schema-migration`: brings the project's tables from the model they were made with to
 * the current one, in place and in one transaction with the stored model: new enums and values,
 * dropped tables, columns added, dropped or retyped (with a cast from the old values), dropped
 * indexes, enums without removed values; then every table and index of the new model that is
 * missing is created. A change the data cannot take (a required field added to a table with rows, a
 * cast that fails) throws and leaves everything as it was.
 */
export async function migrateEntitySchema(
  db: Kysely<any>,
  from: SchemaModel,
  to: SchemaModel,
  changes: readonly SchemaChange[],
  options: MigrateOptions,
): Promise<void> {
  const { schema } = options;
  const tableOf = (e: EntityModel) => qualified(schema, e.table);
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    const step = async (change: SchemaChange, sql: string, params: unknown[] = []) => {
      try {
        await execute(tx, sql, params);
      } catch (err) {
        throw new IdxError(
          'SCHEMA_MIGRATION_FAILED',
          `schema migration of "${schema}" failed at "${describeChange(change)}": ${(err as Error).message}. Nothing was changed; ` +
            'adjust schema.graphql, or index into a new schema with --db-schema <name>, or run idx-node force-clean to start over',
          { cause: err },
        );
      }
    };

    // Enums first: new columns may use them.
    for (const c of changes) {
      if (c.kind === 'add-enum') await step(c, `create type ${qualified(schema, c.enum.pgName)} as enum (${c.enum.values.map(quoteLiteral).join(', ')})`);
      if (c.kind === 'add-enum-values')
        for (const v of c.values) await step(c, `alter type ${qualified(schema, c.enum.pgName)} add value if not exists ${quoteLiteral(v)}`);
    }
    const oldIndexes = indexNames(from, options);
    const newIndexes = indexNames(to, options);
    for (const [table, names] of oldIndexes) {
      const keep = newIndexes.get(table) ?? new Set();
      for (const name of names) {
        if (keep.has(name)) continue;
        const change = changes.find((c) => c.kind === 'drop-index' && c.entity.table === table) ?? changes[0]!;
        await step(change, `drop index if exists ${qualified(schema, name)}`);
      }
    }
    // A field taking the name `created_at`/`updated_at` pushes idx's column aside first; one leaving
    // it gives the name back once the field's column is gone.
    const moves = options.timestampField ? timestampMoves(from, to) : [];
    const moveColumn = async (m: TimestampMove) => {
      const change = changes.find((c) => (c.kind === 'add-field' || c.kind === 'drop-field') && c.entity.name === m.entity.name) ?? changes[0]!;
      if (await hasColumn(tx, schema, m.entity.table, m.from)) {
        await step(change, `alter table ${tableOf(m.entity)} rename column ${quoteIdent(m.from)} to ${quoteIdent(m.to)}`);
      }
    };
    for (const m of moves) if (m.to.startsWith('__')) await moveColumn(m);
    // `_tsv` is generated from the fields: it goes before they change, and comes back after
    for (const c of changes) {
      if (c.kind === 'full-text' && c.from !== undefined) {
        await step(c, `alter table ${tableOf(c.entity)} drop column if exists ${quoteIdent(FULL_TEXT_COLUMN)}`);
      }
    }
    for (const c of changes) {
      switch (c.kind) {
        case 'drop-entity':
          await step(c, `drop table if exists ${tableOf(c.entity)} cascade`);
          break;
        case 'drop-field':
          await step(c, `alter table ${tableOf(c.entity)} drop column if exists ${quoteIdent(c.field.column!)}`);
          break;
        case 'add-field': {
          const col = resolveColumn(c.entity, c.field, schema, to);
          if (!c.field.nullable && (await hasRows(tx, tableOf(c.entity)))) {
            throw new IdxError(
              'SCHEMA_MIGRATION_REFUSED',
              `schema migration of "${schema}": ${describeChange(c)} is required, but ${c.entity.table} already has rows, which have no value for it. ` +
                `Make it optional (drop the "!"), or index into a new schema with --db-schema <name>, or run idx-node force-clean to start over`,
            );
          }
          await step(c, `alter table ${tableOf(c.entity)} add column ${quoteIdent(col.column)} ${col.sqlType}${col.nullable ? '' : ' not null'}`);
          break;
        }
        case 'alter-field': {
          const col = resolveColumn(c.entity, c.to, schema, to);
          const ref = quoteIdent(col.column);
          const table = tableOf(c.entity);
          if (c.from.list && !c.to.list) {
            throw new IdxError(
              'SCHEMA_MIGRATION_REFUSED',
              `schema migration of "${schema}": ${describeChange(c)} turns a list into a single value, which cannot be done in place; rename the field instead`,
            );
          }
          const sameType = JSON.stringify(c.from.type) === JSON.stringify(c.to.type) && c.from.list === c.to.list && c.from.itemNullable === c.to.itemNullable;
          if (!sameType) {
            const { using, helper } = retypeExpression(c.from, col, ref);
            if (helper !== undefined) await step(c, helper);
            await step(c, `alter table ${table} alter column ${ref} type ${col.sqlType} using ${using}`);
          }
          if (c.from.nullable !== c.to.nullable) await step(c, `alter table ${table} alter column ${ref} ${c.to.nullable ? 'drop' : 'set'} not null`);
          break;
        }
        default:
          break;
      }
    }
    for (const m of moves) if (!m.to.startsWith('__')) await moveColumn(m);
    for (const c of changes) {
      if (c.kind === 'full-text' && c.to !== undefined) await step(c, `alter table ${tableOf(c.entity)} add column ${fullTextColumnDdl(c.to)}`);
    }
    // Enums losing values: PostgreSQL cannot remove a value, so the type is made anew and its columns cast over.
    for (const c of changes) {
      if (c.kind !== 'drop-enum-values') continue;
      const type = qualified(schema, c.enum.pgName);
      const old = `${c.enum.pgName}${ENUM_ASIDE_SUFFIX}`;
      await step(c, `alter type ${type} rename to ${quoteIdent(old)}`);
      await step(c, `create type ${type} as enum (${c.enum.values.map(quoteLiteral).join(', ')})`);
      for (const entity of to.entities) {
        for (const field of entity.fields) {
          if (field.type.kind !== 'enum' || field.type.name !== c.enum.name || field.column === undefined) continue;
          const col = resolveColumn(entity, field, schema, to);
          await step(
            c,
            `alter table ${tableOf(entity)} alter column ${quoteIdent(col.column)} type ${col.sqlType} using ${quoteIdent(col.column)}::text${field.list ? '[]' : ''}::${col.sqlType}`,
          );
        }
      }
      await step(c, `drop type ${qualified(schema, old)}`);
    }
    for (const c of changes) if (c.kind === 'drop-enum') await step(c, `drop type if exists ${qualified(schema, c.enum.pgName)}`);
    for (const statement of buildTableDdl(to, options)) await step(changes[0]!, statement);
    const keys = Object.keys(options.metadata);
    await execute(
      tx,
      `insert into ${qualified(schema, '_metadata')} (key, value) select k, v::jsonb from unnest($1::text[], $2::text[]) as u(k, v) on conflict (key) do update set value = excluded.value`,
      [textArray(keys), textArray(keys.map((k) => toJsonText(options.metadata[k])))],
    );
  });
}

interface TimestampMove {
  entity: EntityModel;
  from: string;
  to: string;
}

/** idx's time columns whose name changes between two models of an entity kept by the migration. */
function timestampMoves(from: SchemaModel, to: SchemaModel): TimestampMove[] {
  const moves: TimestampMove[] = [];
  for (const entity of to.entities) {
    const old = from.entities.find((e) => e.name === entity.name);
    if (old === undefined) continue;
    const a = timestampColumns(old);
    const b = timestampColumns(entity);
    if (a.created !== b.created) moves.push({ entity, from: a.created, to: b.created });
    if (a.updated !== b.updated) moves.push({ entity, from: a.updated, to: b.updated });
  }
  return moves;
}

async function hasRows(tx: Executor, table: string): Promise<boolean> {
  return (await execute(tx, `select 1 from ${table} limit 1`)).length > 0;
}
