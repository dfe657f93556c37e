import type { EntityModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import { FULL_TEXT_COLUMN } from '../../domain/entities/entity-model.ts';
import { ENUM_ASIDE_SUFFIX } from '../../domain/entities/names.ts';
import { describeChange, type SchemaChange } from '../../domain/entities/schema-diff.ts';
import { timestampColumns } from '../../domain/entities/timestamp-columns.ts';
import { resolveColumn } from './column-codec.ts';
import { fullTextColumnDdl } from './full-text.ts';
import { retypeExpression } from './retype-sql.ts';
import { buildTableDdl, indexOfStatement, type SchemaDdlOptions } from './schema-ddl.ts';
import { qualified, quoteIdent, quoteLiteral } from './sql.ts';

/**
 * One step of a schema migration, named for the change it makes (errors say which). A statement,
 * run only `ifColumn` exists when given; or a refusal, unconditional or `refuseIfRows` the table has any.
 */
export type MigrationStep =
  { change: SchemaChange; sql: string; ifColumn?: { table: string; column: string } } | { change: SchemaChange; refusal: string; refuseIfRows?: string };

/**
 * The steps that bring the project's tables from `from` to `to`, in order: new enums and values,
 * dropped indexes, idx's time columns pushed aside, `_tsv` dropped, tables and columns dropped,
 * added and retyped, time columns given back, `_tsv` made again, enums without removed values made
 * anew, dropped enums, then every table and index of `to` that is missing.
 */
export function planEntityMigration(from: SchemaModel, to: SchemaModel, changes: readonly SchemaChange[], options: SchemaDdlOptions): MigrationStep[] {
  const { schema } = options;
  const tableOf = (e: EntityModel) => qualified(schema, e.table);
  const steps: MigrationStep[] = [];
  const add = (change: SchemaChange, sql: string) => void steps.push({ change, sql });

  // Enums first: new columns may use them.
  for (const c of changes) {
    if (c.kind === 'add-enum') add(c, `create type ${qualified(schema, c.enum.pgName)} as enum (${c.enum.values.map(quoteLiteral).join(', ')})`);
    if (c.kind === 'add-enum-values')
      for (const v of c.values) add(c, `alter type ${qualified(schema, c.enum.pgName)} add value if not exists ${quoteLiteral(v)}`);
  }
  const oldIndexes = indexNames(from, options);
  const newIndexes = indexNames(to, options);
  for (const [table, names] of oldIndexes) {
    const keep = newIndexes.get(table) ?? new Set();
    for (const name of names) {
      if (keep.has(name)) continue;
      const change = changes.find((c) => c.kind === 'drop-index' && c.entity.table === table) ?? changes[0]!;
      add(change, `drop index if exists ${qualified(schema, name)}`);
    }
  }
  // A field taking the name `created_at`/`updated_at` pushes idx's column aside first; one leaving
  // it gives the name back once the field's column is gone.
  const moves = options.timestampField ? timestampMoves(from, to) : [];
  const moveColumn = (m: TimestampMove) => {
    const change = changes.find((c) => (c.kind === 'add-field' || c.kind === 'drop-field') && c.entity.name === m.entity.name) ?? changes[0]!;
    // only when the column is there
    steps.push({
      change,
      sql: `alter table ${tableOf(m.entity)} rename column ${quoteIdent(m.from)} to ${quoteIdent(m.to)}`,
      ifColumn: { table: m.entity.table, column: m.from },
    });
  };
  for (const m of moves) if (m.to.startsWith('__')) moveColumn(m);
  // `_tsv` is generated from the fields: it goes before they change, and comes back after
  for (const c of changes) {
    if (c.kind === 'full-text' && c.from !== undefined) {
      add(c, `alter table ${tableOf(c.entity)} drop column if exists ${quoteIdent(FULL_TEXT_COLUMN)}`);
    }
  }
  for (const c of changes) {
    switch (c.kind) {
      case 'drop-entity':
        add(c, `drop table if exists ${tableOf(c.entity)} cascade`);
        break;
      case 'drop-field':
        add(c, `alter table ${tableOf(c.entity)} drop column if exists ${quoteIdent(c.field.column!)}`);
        break;
      case 'add-field': {
        const col = resolveColumn(c.entity, c.field, schema, to);
        if (!c.field.nullable) {
          steps.push({
            change: c,
            refuseIfRows: tableOf(c.entity),
            refusal:
              `schema migration of "${schema}": ${describeChange(c)} is required, but ${c.entity.table} already has rows, which have no value for it. ` +
              `Make it optional (drop the "!"), or index into a new schema with --db-schema <name>, or run idx-node force-clean to start over`,
          });
        }
        add(c, `alter table ${tableOf(c.entity)} add column ${quoteIdent(col.column)} ${col.sqlType}${col.nullable ? '' : ' not null'}`);
        break;
      }
      case 'alter-field': {
        const col = resolveColumn(c.entity, c.to, schema, to);
        const ref = quoteIdent(col.column);
        const table = tableOf(c.entity);
        if (c.from.list && !c.to.list) {
          steps.push({
            change: c,
            refusal: `schema migration of "${schema}": ${describeChange(c)} turns a list into a single value, which cannot be done in place; rename the field instead`,
          });
          break;
        }
        const sameType = JSON.stringify(c.from.type) === JSON.stringify(c.to.type) && c.from.list === c.to.list && c.from.itemNullable === c.to.itemNullable;
        if (!sameType) {
          const { using, helper } = retypeExpression(c.from, col, ref);
          if (helper !== undefined) add(c, helper);
          add(c, `alter table ${table} alter column ${ref} type ${col.sqlType} using ${using}`);
        }
        if (c.from.nullable !== c.to.nullable) add(c, `alter table ${table} alter column ${ref} ${c.to.nullable ? 'drop' : 'set'} not null`);
        break;
      }
      default:
        break;
    }
  }
  for (const m of moves) if (!m.to.startsWith('__')) moveColumn(m);
  for (const c of changes) {
    if (c.kind === 'full-text' && c.to !== undefined) add(c, `alter table ${tableOf(c.entity)} add column ${fullTextColumnDdl(c.to)}`);
  }
  // Enums losing values: PostgreSQL cannot remove a value, so the type is made anew and its columns cast over.
  for (const c of changes) {
    if (c.kind !== 'drop-enum-values') continue;
    const type = qualified(schema, c.enum.pgName);
    const old = `${c.enum.pgName}${ENUM_ASIDE_SUFFIX}`;
    add(c, `alter type ${type} rename to ${quoteIdent(old)}`);
    add(c, `create type ${type} as enum (${c.enum.values.map(quoteLiteral).join(', ')})`);
    for (const entity of to.entities) {
      for (const field of entity.fields) {
        if (field.type.kind !== 'enum' || field.type.name !== c.enum.name || field.column === undefined) continue;
        const col = resolveColumn(entity, field, schema, to);
        add(
          c,
          `alter table ${tableOf(entity)} alter column ${quoteIdent(col.column)} type ${col.sqlType} using ${quoteIdent(col.column)}::text${field.list ? '[]' : ''}::${col.sqlType}`,
        );
      }
    }
    add(c, `drop type ${qualified(schema, old)}`);
  }
  for (const c of changes) if (c.kind === 'drop-enum') add(c, `drop type if exists ${qualified(schema, c.enum.pgName)}`);
  for (const statement of buildTableDdl(to, options)) add(changes[0]!, statement);
  return steps;
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
